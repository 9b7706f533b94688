// expect: RUNTIME_ERROR
// message: forbidden system call
#include "accelopt_task.h"
struct Limit { unsigned long soft, hard; };
extern "C" int setrlimit(int resource, const Limit* limit);
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict) {
  Limit unlimited{~0ul, ~0ul};
  setrlimit(9 /* RLIMIT_AS */, &unlimited);
}
