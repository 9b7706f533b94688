// Baseline for rmsnorm_matmul: out = (x / sqrt(sum_k x^2 / K)) @ w. First the rows of x are
// normalized into a scratch matrix, then a cache-blocked matmul multiplies it by w.
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

extern "C" void kernel(const float* __restrict x, const float* __restrict w,
                       float* __restrict out) {
  std::vector<float> normalized(M * K);
  for (std::int64_t i = 0; i < M; ++i) {
    float sum_squares = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) sum_squares += x[i * K + k] * x[i * K + k];
    const float inverse_rms = 1.0f / std::sqrt(sum_squares / K);
    for (std::int64_t k = 0; k < K; ++k) normalized[i * K + k] = x[i * K + k] * inverse_rms;
  }
  for (std::int64_t i = 0; i < M * N; ++i) out[i] = 0.0f;
  matmul_accumulate(normalized.data(), K, w, N, out, N, M, N, K);
}
