// CUDA baseline for bmm: out[b] = lhs[b] @ rhs[b], one thread per output, the batch on grid z.
#include "accelopt_task.h"

constexpr int TILE = 16;  // knob: 8 16 32

__global__ void bmm_kernel(const float* __restrict lhs, const float* __restrict rhs,
                           float* __restrict out) {
  std::int64_t b = blockIdx.z;
  std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * TILE + threadIdx.y;
  std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * TILE + threadIdx.x;
  if (i >= M || j >= N) return;
  const float* a = lhs + b * M * K;
  const float* w = rhs + b * K * N;
  float sum = 0.0f;
  for (std::int64_t k = 0; k < K; ++k) sum += a[i * K + k] * w[k * N + j];
  out[(b * M + i) * N + j] = sum;
}

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE, B);
  bmm_kernel<<<grid, block>>>(lhs, rhs, out);
}
