// Baseline for bmm: out[b] = lhs[b] @ rhs[b]. Per batch, cache-blocked i-k-j loops: a TILE_N wide
// panel of rhs[b] stays in cache while the rows of lhs[b] stream past it; the innermost loop runs
// along a row of out and rhs, so it vectorizes, and K_UNROLL rows of rhs are folded into each pass
// over the out row. float32 accumulation.
#include <algorithm>
#include <cstdint>

#include "accelopt_task.h"

constexpr int TILE_M = 64;   // knob: 16 32 64 128 256
constexpr int TILE_N = 256;  // knob: 64 128 256 512 1024
constexpr int K_UNROLL = 2;  // knob: 1 2 4 8

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  for (std::int64_t b = 0; b < B; ++b) {
    const float* __restrict a_mat = lhs + b * M * K;
    const float* __restrict b_mat = rhs + b * K * N;
    float* __restrict c_mat = out + b * M * N;
    for (std::int64_t j0 = 0; j0 < N; j0 += TILE_N) {
      const std::int64_t j1 = std::min<std::int64_t>(j0 + TILE_N, N);
      for (std::int64_t i0 = 0; i0 < M; i0 += TILE_M) {
        const std::int64_t i1 = std::min<std::int64_t>(i0 + TILE_M, M);
        for (std::int64_t i = i0; i < i1; ++i) {
          float* __restrict out_row = c_mat + i * N;
          const float* __restrict lhs_row = a_mat + i * K;
          for (std::int64_t j = j0; j < j1; ++j) out_row[j] = 0.0f;
          constexpr std::int64_t k_end = K - K % K_UNROLL;
          for (std::int64_t k = 0; k < k_end; k += K_UNROLL) {
            for (std::int64_t j = j0; j < j1; ++j) {
              float sum = out_row[j];
              for (int u = 0; u < K_UNROLL; ++u) sum += lhs_row[k + u] * b_mat[(k + u) * N + j];
              out_row[j] = sum;
            }
          }
          for (std::int64_t k = k_end; k < K;
               ++k) {  // the rows left over when K_UNROLL does not divide K
            const float a = lhs_row[k];
            for (std::int64_t j = j0; j < j1; ++j) out_row[j] += a * b_mat[k * N + j];
          }
        }
      }
    }
  }
}
