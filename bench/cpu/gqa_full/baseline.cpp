// Baseline for gqa_full: grouped-query attention, not causal, one query row at a time. For each kv
// head the keys are transposed once to [D, N] so that a query's score row is built in i-k-j order
// (the innermost loop runs along the keys and vectorizes, SCORE_UNROLL key rows folded per pass);
// the softmax works in place on the row (max and sum kept in LANES partial results so they
// vectorize; exp_approx replaces std::exp, which would not); the output row is then accumulated
// from the value rows in the same i-k-j order (VALUE_UNROLL value rows per pass). float32.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

constexpr int SCORE_UNROLL = 2;  // knob: 1 2 4 8
constexpr int VALUE_UNROLL = 2;  // knob: 1 2 4 8
constexpr int LANES = 16;        // knob: 8 16 32 64

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
  constexpr std::int64_t full = N - N % LANES;
  float lanes[LANES];
  for (int l = 0; l < LANES; ++l) lanes[l] = row[0];
  for (std::int64_t j = 0; j < full; j += LANES) {
    for (int l = 0; l < LANES; ++l) lanes[l] = std::max(lanes[l], row[j + l]);
  }
  float result = row[0];
  for (int l = 0; l < LANES; ++l) result = std::max(result, lanes[l]);
  for (std::int64_t j = full; j < N; ++j) result = std::max(result, row[j]);
  return result;
}

static float row_sum(const float* __restrict row) {
  constexpr std::int64_t full = N - N % LANES;
  float lanes[LANES] = {};
  for (std::int64_t j = 0; j < full; j += LANES) {
    for (int l = 0; l < LANES; ++l) lanes[l] += row[j + l];
  }
  float result = 0.0f;
  for (int l = 0; l < LANES; ++l) result += lanes[l];
  for (std::int64_t j = full; j < N; ++j) result += row[j];
  return result;
}

extern "C" void kernel(const float* __restrict q, const float* __restrict k,
                       const float* __restrict v, float* __restrict out) {
  constexpr std::int64_t group = QH / KH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  std::vector<float> keys_t(D * N), scores(N);
  float* __restrict row = scores.data();
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t kv = 0; kv < KH; ++kv) {
      for (std::int64_t j = 0; j < N; ++j) {
        for (std::int64_t d = 0; d < D; ++d) keys_t[d * N + j] = k[((b * N + j) * KH + kv) * D + d];
      }
      for (std::int64_t h = kv * group; h < (kv + 1) * group; ++h) {
        for (std::int64_t i = 0; i < N; ++i) {
          const float* __restrict q_row = q + ((b * N + i) * QH + h) * D;
          // scores = q_row @ keys_t * scale
          for (std::int64_t j = 0; j < N; ++j) row[j] = 0.0f;
          constexpr std::int64_t d_end = D - D % SCORE_UNROLL;
          for (std::int64_t d = 0; d < d_end; d += SCORE_UNROLL) {
            for (std::int64_t j = 0; j < N; ++j) {
              float sum = row[j];
              for (int s = 0; s < SCORE_UNROLL; ++s) sum += q_row[d + s] * keys_t[(d + s) * N + j];
              row[j] = sum;
            }
          }
          for (std::int64_t d = d_end; d < D; ++d) {
            for (std::int64_t j = 0; j < N; ++j) row[j] += q_row[d] * keys_t[d * N + j];
          }
          for (std::int64_t j = 0; j < N; ++j) row[j] *= scale;
          // softmax, left unnormalized; the output row is scaled at the end
          const float max_score = row_max(row);
          for (std::int64_t j = 0; j < N; ++j) row[j] = exp_approx(row[j] - max_score);
          const float inverse = 1.0f / row_sum(row);
          // out_row = row @ v
          float* __restrict out_row = out + ((b * QH + h) * N + i) * D;
          for (std::int64_t e = 0; e < D; ++e) out_row[e] = 0.0f;
          constexpr std::int64_t j_end = N - N % VALUE_UNROLL;
          for (std::int64_t j = 0; j < j_end; j += VALUE_UNROLL) {
            for (std::int64_t e = 0; e < D; ++e) {
              float sum = out_row[e];
              for (int s = 0; s < VALUE_UNROLL; ++s) {
                sum += row[j + s] * v[((b * N + j + s) * KH + kv) * D + e];
              }
              out_row[e] = sum;
            }
          }
          for (std::int64_t j = j_end; j < N; ++j) {
            for (std::int64_t e = 0; e < D; ++e)
              out_row[e] += row[j] * v[((b * N + j) * KH + kv) * D + e];
          }
          for (std::int64_t e = 0; e < D; ++e) out_row[e] *= inverse;
        }
      }
    }
  }
}
