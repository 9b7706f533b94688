// Baseline for transpose_matmul: out = transpose(lhs) @ rhs with lhs [K, M]. The same cache-blocked
// i-k-j loops as matmul; lhs is read down a column (one scalar per k), rhs and out along rows, so
// the innermost loop vectorizes. K_UNROLL rows of rhs are folded into each pass over the out row.
// float32 accumulation.
#include <algorithm>
#include <cstdint>

#include "accelopt_task.h"

constexpr int TILE_M = 64;   // knob: 16 32 64 128 256
constexpr int TILE_N = 256;  // knob: 64 128 256 512 1024
constexpr int TILE_K = 128;  // knob: 32 64 128 256 512
constexpr int K_UNROLL = 2;  // knob: 1 2 4 8

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  for (std::int64_t i = 0; i < M * N; ++i) out[i] = 0.0f;
  for (std::int64_t j0 = 0; j0 < N; j0 += TILE_N) {
    const std::int64_t j1 = std::min<std::int64_t>(j0 + TILE_N, N);
    for (std::int64_t k0 = 0; k0 < K; k0 += TILE_K) {
      const std::int64_t k1 = std::min<std::int64_t>(k0 + TILE_K, K);
      for (std::int64_t i0 = 0; i0 < M; i0 += TILE_M) {
        const std::int64_t i1 = std::min<std::int64_t>(i0 + TILE_M, M);
        for (std::int64_t i = i0; i < i1; ++i) {
          float* __restrict out_row = out + i * N;
          const std::int64_t k_end = k0 + (k1 - k0) / K_UNROLL * K_UNROLL;
          for (std::int64_t k = k0; k < k_end; k += K_UNROLL) {
            for (std::int64_t j = j0; j < j1; ++j) {
              float sum = out_row[j];
              for (int u = 0; u < K_UNROLL; ++u) sum += lhs[(k + u) * M + i] * rhs[(k + u) * N + j];
              out_row[j] = sum;
            }
          }
          for (std::int64_t k = k_end; k < k1;
               ++k) {  // the rows of the panel left over when K_UNROLL does not divide it
            const float a = lhs[k * M + i];
            for (std::int64_t j = j0; j < j1; ++j) out_row[j] += a * rhs[k * N + j];
          }
        }
      }
    }
  }
}
