// expect: REJECTED_SOURCE
// message: #include <sys/socket.h> is not allowed
#include <sys/socket.h>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict) {}
