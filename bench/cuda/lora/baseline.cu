// CUDA baseline for lora: out = x @ w + (x @ a) @ b. First x @ a into a device buffer [M, R],
// then one thread per output adds both products.
#include "accelopt_task.h"

constexpr int TILE = 16;  // knob: 8 16 32

__device__ float xa[M * R];

__global__ void down_kernel(const float* __restrict x, const float* __restrict a) {
  std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= M * R) return;
  std::int64_t i = index / R, r = index % R;
  float sum = 0.0f;
  for (std::int64_t k = 0; k < K; ++k) sum += x[i * K + k] * a[k * R + r];
  xa[index] = sum;
}

__global__ void lora_kernel(const float* __restrict x, const float* __restrict w,
                            const float* __restrict b, float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * TILE + threadIdx.y;
  std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * TILE + threadIdx.x;
  if (i >= M || j >= N) return;
  float sum = 0.0f;
  for (std::int64_t k = 0; k < K; ++k) sum += x[i * K + k] * w[k * N + j];
  for (std::int64_t r = 0; r < R; ++r) sum += xa[i * R + r] * b[r * N + j];
  out[i * N + j] = sum;
}

extern "C" void kernel(const float* __restrict x, const float* __restrict w,
                       const float* __restrict a, const float* __restrict b,
                       float* __restrict out) {
  down_kernel<<<(M * R + 255) / 256, 256>>>(x, a);
  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  lora_kernel<<<grid, block>>>(x, w, b, out);
}
