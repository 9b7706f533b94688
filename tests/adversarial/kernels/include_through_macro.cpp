// expect: REJECTED_SOURCE
// message: not through a macro
#define SNEAKY </etc/shadow>
#include SNEAKY
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict) {}
