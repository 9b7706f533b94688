// expect: RUNTIME_ERROR
// message: printed more than
#include <cstdio>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict) {
  for (long i = 0; i < 100000000; ++i) std::fputs("flood flood flood flood flood flood flood\n", stdout);
}
