// expect: REJECTED_SOURCE
// message: 'constructor' is not allowed
#include "accelopt_task.h"
__attribute__((constructor)) static void at_load() {}
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict) {}
