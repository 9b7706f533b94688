// expect: INCORRECT_NUMERICAL
// message: never written
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict) {}
