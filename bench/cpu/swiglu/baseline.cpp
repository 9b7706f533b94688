// Baseline for swiglu: out = (silu(x @ w_gate) * (x @ w_up)) @ w_down. Cache-blocked matmuls write
// the gate and up projections to scratch matrices, the gated activation is formed in place, and a
// last cache-blocked matmul multiplies it by w_down.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

constexpr int TILE_M = 64;   // knob: 16 32 64 128 256
constexpr int TILE_N = 256;  // knob: 64 128 256 512 1024
constexpr int TILE_K = 128;  // knob: 32 64 128 256 512
constexpr int K_UNROLL = 2;  // knob: 1 2 4 8

// c[rows x cols] += a[rows x depth] @ b[depth x cols], all row-major with the given row strides.
// Cache-blocked i-k-j loops: a TILE_K x TILE_N panel of b stays in cache while TILE_M rows of a
// stream past it; the innermost loop runs along a row of c and b, so the compiler vectorizes it,
// and K_UNROLL rows of b are folded into each pass over the c row. float32 accumulation.
static void matmul_accumulate(const float* __restrict a, std::int64_t lda,
                              const float* __restrict b, std::int64_t ldb, float* __restrict c,
                              std::int64_t ldc, std::int64_t rows, std::int64_t cols,
                              std::int64_t depth) {
  for (std::int64_t j0 = 0; j0 < cols; j0 += TILE_N) {
    const std::int64_t j1 = std::min<std::int64_t>(j0 + TILE_N, cols);
    for (std::int64_t k0 = 0; k0 < depth; k0 += TILE_K) {
      const std::int64_t k1 = std::min<std::int64_t>(k0 + TILE_K, depth);
      for (std::int64_t i0 = 0; i0 < rows; i0 += TILE_M) {
        const std::int64_t i1 = std::min<std::int64_t>(i0 + TILE_M, rows);
        for (std::int64_t i = i0; i < i1; ++i) {
          float* __restrict c_row = c + i * ldc;
          const float* __restrict a_row = a + i * lda;
          const std::int64_t k_end = k0 + (k1 - k0) / K_UNROLL * K_UNROLL;
          for (std::int64_t k = k0; k < k_end; k += K_UNROLL) {
            for (std::int64_t j = j0; j < j1; ++j) {
              float sum = c_row[j];
              for (int u = 0; u < K_UNROLL; ++u) sum += a_row[k + u] * b[(k + u) * ldb + j];
              c_row[j] = sum;
            }
          }
          for (std::int64_t k = k_end; k < k1;
               ++k) {  // the rows of the panel left over when K_UNROLL does not divide it
            const float scale = a_row[k];
            for (std::int64_t j = j0; j < j1; ++j) c_row[j] += scale * b[k * ldb + j];
          }
        }
      }
    }
  }
}

extern "C" void kernel(const float* __restrict x, const float* __restrict w_gate,
                       const float* __restrict w_up, const float* __restrict w_down,
                       float* __restrict out) {
  std::vector<float> gate(M * N, 0.0f), up(M * N, 0.0f);
  matmul_accumulate(x, K, w_gate, N, gate.data(), N, M, N, K);
  matmul_accumulate(x, K, w_up, N, up.data(), N, M, N, K);
  for (std::int64_t i = 0; i < M * N; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
  for (std::int64_t i = 0; i < M * K; ++i) out[i] = 0.0f;
  matmul_accumulate(gate.data(), N, w_down, K, out, K, M, K, N);
}
