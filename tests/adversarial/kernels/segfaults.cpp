// expect: RUNTIME_ERROR
// message: Segmentation fault
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict out) {
  volatile float* nowhere = nullptr;
  out[0] = *nowhere;
}
