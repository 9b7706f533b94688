// expect: REJECTED_SOURCE
// message: is not allowed
#include "/etc/passwd"
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict) {}
