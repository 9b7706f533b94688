// expect: RUNTIME_ERROR
// message: forbidden system call
#include "accelopt_task.h"
extern "C" int fork();
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict) {
  for (int i = 0; i < 100000; ++i) fork();
}
