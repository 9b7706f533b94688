// CUDA baseline for silu: out = x / (1 + exp(-x)), one thread per element.
#include "accelopt_task.h"

constexpr int BLOCK = 256;  // knob: 128 256 512 1024

__global__ void silu_kernel(const float* __restrict x, float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < M * N) out[i] = x[i] / (1.0f + expf(-x[i]));
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  silu_kernel<<<(M * N + BLOCK - 1) / BLOCK, BLOCK>>>(x, out);
}
