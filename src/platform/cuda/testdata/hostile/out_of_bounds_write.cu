// Hostile: writes one block past the end of its output in device memory.
#include "accelopt_task.h"

__global__ void silu_kernel(const float* x, float* out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < M * N + 256) out[i] = i < M * N ? x[i] / (1.0f + expf(-x[i])) : 0.0f;
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  silu_kernel<<<(M * N + 256 + 255) / 256, 256>>>(x, out);
}
