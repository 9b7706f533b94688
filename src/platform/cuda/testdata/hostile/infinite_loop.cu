// Hostile: a device kernel that never returns.
#include "accelopt_task.h"

__global__ void spin_kernel(float* out) {
  volatile int forever = 1;
  while (forever) {
  }
  out[0] = 0;
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  spin_kernel<<<1, 1>>>(out);
}
