// Baseline for bmm_softmax: out[b] = row-wise softmax of lhs[b] @ rhs[b]. One row of scores at a
// time: the row is accumulated in i-k-j order straight into out (rhs[b] stays in cache across
// rows, the innermost loop vectorizes, K_UNROLL rows of rhs are folded into each pass), then
// normalized in place: max, exp and sum, scale. float32 throughout.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "accelopt_task.h"

constexpr int K_UNROLL = 2;   // knob: 1 2 4 8
constexpr int TILE_N = 1024;  // knob: 128 256 512 1024 2048
constexpr int LANES = 16;     // knob: 8 16 32 64

// exp(x) in float32, written so that the compiler vectorizes loops that call it (std::exp is a
// library call that stops vectorization): x = n ln2 + r with |r| <= ln2 / 2, exp(r) by its
// degree-6 Taylor polynomial, 2^n built in the exponent bits. Relative error below 3e-7 on
// [-87, 88]; arguments outside are clamped.
static inline float exp_approx(float x) {
  x = std::min(std::max(x, -87.0f), 88.0f);
  const float n = std::nearbyint(x * 1.44269504f);
  const float r = (x - n * 0.693145751953125f) - n * 1.42860677e-6f;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * std::bit_cast<float>((static_cast<std::int32_t>(n) + 127) << 23);
}

// The maximum and the sum of a row of N, kept in LANES independent partial results so that the
// loops vectorize (a single running max or sum is a serial chain the compiler may not reorder).
static float row_max(const float* __restrict row) {
  float lanes[LANES];
  for (int l = 0; l < LANES; ++l) lanes[l] = row[0];
  constexpr std::int64_t full = N - N % LANES;
  for (std::int64_t j = 0; j < full; j += LANES) {
    for (int l = 0; l < LANES; ++l) lanes[l] = std::max(lanes[l], row[j + l]);
  }
  float result = row[0];
  for (int l = 0; l < LANES; ++l) result = std::max(result, lanes[l]);
  for (std::int64_t j = full; j < N; ++j) result = std::max(result, row[j]);
  return result;
}

static float row_sum(const float* __restrict row) {
  float lanes[LANES] = {};
  constexpr std::int64_t full = N - N % LANES;
  for (std::int64_t j = 0; j < full; j += LANES) {
    for (int l = 0; l < LANES; ++l) lanes[l] += row[j + l];
  }
  float result = 0.0f;
  for (int l = 0; l < LANES; ++l) result += lanes[l];
  for (std::int64_t j = full; j < N; ++j) result += row[j];
  return result;
}

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  for (std::int64_t b = 0; b < B; ++b) {
    const float* __restrict a_mat = lhs + b * M * K;
    const float* __restrict b_mat = rhs + b * K * N;
    for (std::int64_t i = 0; i < M; ++i) {
      float* __restrict row = out + (b * M + i) * N;
      const float* __restrict lhs_row = a_mat + i * K;
      // scores, TILE_N columns at a time
      for (std::int64_t j0 = 0; j0 < N; j0 += TILE_N) {
        const std::int64_t j1 = std::min<std::int64_t>(j0 + TILE_N, N);
        for (std::int64_t j = j0; j < j1; ++j) row[j] = 0.0f;
        constexpr std::int64_t k_end = K - K % K_UNROLL;
        for (std::int64_t k = 0; k < k_end; k += K_UNROLL) {
          for (std::int64_t j = j0; j < j1; ++j) {
            float sum = row[j];
            for (int u = 0; u < K_UNROLL; ++u) sum += lhs_row[k + u] * b_mat[(k + u) * N + j];
            row[j] = sum;
          }
        }
        for (std::int64_t k = k_end; k < K;
             ++k) {  // the rows left over when K_UNROLL does not divide K
          const float a = lhs_row[k];
          for (std::int64_t j = j0; j < j1; ++j) row[j] += a * b_mat[k * N + j];
        }
      }
      // softmax over the row
      const float max_score = row_max(row);
      for (std::int64_t j = 0; j < N; ++j) row[j] = exp_approx(row[j] - max_score);
      const float inverse = 1.0f / row_sum(row);
      for (std::int64_t j = 0; j < N; ++j) row[j] *= inverse;
    }
  }
}
