// CUDA baseline for matmul: out = lhs @ rhs, one thread per output element, TILE x TILE blocks.
#include "accelopt_task.h"

constexpr int TILE = 16;  // knob: 8 16 32

__global__ void matmul_kernel(const float* __restrict lhs, const float* __restrict rhs,
                              float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * TILE + threadIdx.y;
  std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * TILE + threadIdx.x;
  if (i >= M || j >= N) return;
  float sum = 0.0f;
  for (std::int64_t k = 0; k < K; ++k) sum += lhs[i * K + k] * rhs[k * N + j];
  out[i * N + j] = sum;
}

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_kernel<<<grid, block>>>(lhs, rhs, out);
}
