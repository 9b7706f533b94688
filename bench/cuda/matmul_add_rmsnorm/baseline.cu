// CUDA baseline for matmul_add_rmsnorm: y = x @ w + z into a device buffer, then one block per
// row scales it: out = y · g / sqrt(mean(y²) + 1e-5).
#include "accelopt_task.h"

constexpr int TILE = 16;    // knob: 8 16 32
constexpr int BLOCK = 256;  // knob: 128 256 512

__device__ float y[M * N];

__global__ void matmul_add_kernel(const float* __restrict x, const float* __restrict w,
                                  const float* __restrict z) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * TILE + threadIdx.y;
  std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * TILE + threadIdx.x;
  if (i >= M || j >= N) return;
  float sum = 0.0f;
  for (std::int64_t k = 0; k < K; ++k) sum += x[i * K + k] * w[k * N + j];
  y[i * N + j] = sum + z[i * N + j];
}

__global__ void rmsnorm_kernel(const float* __restrict g, float* __restrict out) {
  __shared__ float partial[BLOCK];
  std::int64_t i = blockIdx.x;
  float sum_squares = 0.0f;
  for (std::int64_t j = threadIdx.x; j < N; j += BLOCK) sum_squares += y[i * N + j] * y[i * N + j];
  partial[threadIdx.x] = sum_squares;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  float scale = rsqrtf(partial[0] / N + 1e-5f);
  for (std::int64_t j = threadIdx.x; j < N; j += BLOCK) out[i * N + j] = y[i * N + j] * g[j] * scale;
}

extern "C" void kernel(const float* __restrict x, const float* __restrict w,
                       const float* __restrict z, const float* __restrict g,
                       float* __restrict out) {
  dim3 block(TILE, TILE);
  matmul_add_kernel<<<dim3((N + TILE - 1) / TILE, (M + TILE - 1) / TILE), block>>>(x, w, z);
  rmsnorm_kernel<<<M, BLOCK>>>(g, out);
}
