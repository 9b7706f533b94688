// CUDA baseline for swiglu: h = silu(x @ w_gate) * (x @ w_up) into a device buffer [M, N], then
// out = h @ w_down; one thread per element of each.
#include "accelopt_task.h"

constexpr int TILE = 16;  // knob: 8 16 32

__device__ float hidden[M * N];

__global__ void gate_up_kernel(const float* __restrict x, const float* __restrict w_gate,
                               const float* __restrict w_up) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * TILE + threadIdx.y;
  std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * TILE + threadIdx.x;
  if (i >= M || j >= N) return;
  float gate = 0.0f, up = 0.0f;
  for (std::int64_t k = 0; k < K; ++k) {
    gate += x[i * K + k] * w_gate[k * N + j];
    up += x[i * K + k] * w_up[k * N + j];
  }
  hidden[i * N + j] = gate / (1.0f + expf(-gate)) * up;
}

__global__ void down_kernel(const float* __restrict w_down, float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * TILE + threadIdx.y;
  std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * TILE + threadIdx.x;
  if (i >= M || k >= K) return;
  float sum = 0.0f;
  for (std::int64_t j = 0; j < N; ++j) sum += hidden[i * N + j] * w_down[j * K + k];
  out[i * K + k] = sum;
}

extern "C" void kernel(const float* __restrict x, const float* __restrict w_gate,
                       const float* __restrict w_up, const float* __restrict w_down,
                       float* __restrict out) {
  dim3 block(TILE, TILE);
  gate_up_kernel<<<dim3((N + TILE - 1) / TILE, (M + TILE - 1) / TILE), block>>>(x, w_gate, w_up);
  down_kernel<<<dim3((K + TILE - 1) / TILE, (M + TILE - 1) / TILE), block>>>(w_down, out);
}
