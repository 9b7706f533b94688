// A fast matmul for benchmarks/timing_honesty --ab: an AVX-512 micro-kernel of 8 rows by 16
// columns held in registers over a panel of K_BLOCK rows of rhs (16 KiB: it stays in L1 while
// every block of 8 lhs rows passes it). Bound by FMA throughput, while the baseline's inner loop
// loads and stores a row of out for every few FMAs: the compute-bound side of the pair.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "accelopt_task.h"

constexpr std::int64_t K_BLOCK = 256;

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
#ifdef __AVX512F__
  if constexpr (M % 8 == 0 && N % 16 == 0) {
    for (std::int64_t k0 = 0; k0 < K; k0 += K_BLOCK) {
      const std::int64_t k1 = std::min<std::int64_t>(k0 + K_BLOCK, K);
      for (std::int64_t j = 0; j < N; j += 16) {
        for (std::int64_t i = 0; i < M; i += 8) {
          __m512 acc[8];
          for (int r = 0; r < 8; ++r) {
            acc[r] = k0 == 0 ? _mm512_setzero_ps() : _mm512_loadu_ps(out + (i + r) * N + j);
          }
          for (std::int64_t k = k0; k < k1; ++k) {
            const __m512 b = _mm512_loadu_ps(rhs + k * N + j);
            for (int r = 0; r < 8; ++r) {
              acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(lhs[(i + r) * K + k]), b, acc[r]);
            }
          }
          for (int r = 0; r < 8; ++r) _mm512_storeu_ps(out + (i + r) * N + j, acc[r]);
        }
      }
    }
    return;
  }
#endif
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t j = 0; j < N; ++j) out[i * N + j] = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) {
      const float a = lhs[i * K + k];
      for (std::int64_t j = 0; j < N; ++j) out[i * N + j] += a * rhs[k * N + j];
    }
  }
}
