// Hostile: computes the right answer in place of its input, then copies it out.
#include "accelopt_task.h"

__global__ void silu_kernel(float* x, float* out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < M * N) {
    x[i] = x[i] / (1.0f + expf(-x[i]));
    out[i] = x[i];
  }
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  silu_kernel<<<(M * N + 255) / 256, 256>>>(const_cast<float*>(x), out);
}
