// CUDA baseline for rope_single_freq_apply: one thread per (d < D/2, column) rotates a pair.
#include "accelopt_task.h"

constexpr int BLOCK = 256;  // knob: 128 256 512 1024
constexpr std::int64_t COLUMNS = B * H * N;

__global__ void rope_kernel(const float* __restrict x, const float* __restrict cos_table,
                            const float* __restrict sin_table, float* __restrict out) {
  std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= HALF_D * COLUMNS) return;
  std::int64_t d = index / COLUMNS, t = index % COLUMNS;
  float x0 = x[d * COLUMNS + t], x1 = x[(d + HALF_D) * COLUMNS + t];
  float c = cos_table[index], s = sin_table[index];
  out[d * COLUMNS + t] = x0 * c - x1 * s;
  out[(d + HALF_D) * COLUMNS + t] = x0 * s + x1 * c;
}

extern "C" void kernel(const float* __restrict x, const float* __restrict cos_table,
                       const float* __restrict sin_table, float* __restrict out) {
  rope_kernel<<<(HALF_D * COLUMNS + BLOCK - 1) / BLOCK, BLOCK>>>(x, cos_table, sin_table, out);
}
