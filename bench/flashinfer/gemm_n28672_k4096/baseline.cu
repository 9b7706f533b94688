// CUDA baseline for gemm_n28672_k4096: C = A @ B^T, float16 storage, float accumulation (as
// reference.py's torch.matmul accumulates float16 in float), one rounding to float16 on the store.
// The classic shared-memory tiling: a TILE x TILE block of threads computes a TILE x TILE tile of
// C, one element each, stepping along K a TILE-wide slice of A's rows and of B's rows at a time. A
// and B are both K-contiguous, so each slice loads coalesced. No tensor cores: a starting point.
#include "accelopt_task.h"

constexpr int TILE = 16;  // knob: 8 16 32
static_assert(K % TILE == 0, "K is a multiple of TILE");

__global__ void gemm_kernel(const __half* __restrict A, const __half* __restrict B,
                            __half* __restrict C) {
  __shared__ float a_tile[TILE][TILE + 1];  // [row of C][k], padded against bank conflicts
  __shared__ float b_tile[TILE][TILE + 1];  // [column of C][k]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t m = static_cast<std::int64_t>(blockIdx.y) * TILE + ty;
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * TILE + tx;
  const std::int64_t b_row = static_cast<std::int64_t>(blockIdx.x) * TILE + ty;
  float sum = 0.0f;
  for (std::int64_t k0 = 0; k0 < K; k0 += TILE) {
    a_tile[ty][tx] = m < M ? accelopt::to_float(A[m * K + k0 + tx]) : 0.0f;
    b_tile[ty][tx] = b_row < N ? accelopt::to_float(B[b_row * K + k0 + tx]) : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += a_tile[ty][k] * b_tile[tx][k];
    __syncthreads();
  }
  if (m < M && n < N) C[m * N + n] = accelopt::to_fp16(sum);
}

extern "C" void kernel(const __half* __restrict A, const __half* __restrict B,
                       __half* __restrict C) {
  if (M <= 0) return;
  dim3 block(TILE, TILE);
  dim3 grid(static_cast<unsigned>((N + TILE - 1) / TILE),
            static_cast<unsigned>((M + TILE - 1) / TILE));
  gemm_kernel<<<grid, block>>>(A, B, C);
}
