// expect: REJECTED_SOURCE
// message: does not define the entry point
#include "accelopt_task.h"
extern "C" void not_the_kernel(const float* __restrict, const float* __restrict, float* __restrict) {}
