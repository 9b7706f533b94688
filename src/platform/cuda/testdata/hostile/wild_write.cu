// Hostile: writes far outside any allocation: an illegal address on the device.
#include "accelopt_task.h"

__global__ void wild_kernel(float* out) { out[1ll << 36] = 1.0f; }

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  wild_kernel<<<1, 1>>>(out);
}
