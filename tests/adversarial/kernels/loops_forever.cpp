// expect: TIMEOUT
// message: did not return
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict out) {
  volatile bool forever = true;
  while (forever) out[0] = 1.0f;
}
