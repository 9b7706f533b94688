// Reference for gqa_full: grouped-query attention, not causal. q [B, N, QH, D], k and v [B, N, KH,
// D]; query head h reads kv head h / (QH / KH); out[b, h, i, :] = softmax_j(q_i . k_j / sqrt(D)) @
// v.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict q, const float* __restrict k,
                       const float* __restrict v, float* __restrict out) {
  const std::int64_t group = QH / KH;
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  std::vector<double> scores(N), acc(D);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t h = 0; h < QH; ++h) {
      const std::int64_t kv = h / group;
      for (std::int64_t i = 0; i < N; ++i) {
        const float* q_row = q + ((b * N + i) * QH + h) * D;
        double max_score = -INFINITY;
        for (std::int64_t j = 0; j < N; ++j) {
          const float* k_row = k + ((b * N + j) * KH + kv) * D;
          double dot = 0.0;
          for (std::int64_t d = 0; d < D; ++d) dot += static_cast<double>(q_row[d]) * k_row[d];
          scores[j] = dot * scale;
          max_score = std::max(max_score, scores[j]);
        }
        double sum = 0.0;
        for (std::int64_t j = 0; j < N; ++j) {
          scores[j] = std::exp(scores[j] - max_score);
          sum += scores[j];
        }
        for (std::int64_t d = 0; d < D; ++d) acc[d] = 0.0;
        for (std::int64_t j = 0; j < N; ++j) {
          const float* v_row = v + ((b * N + j) * KH + kv) * D;
          for (std::int64_t d = 0; d < D; ++d) acc[d] += scores[j] * static_cast<double>(v_row[d]);
        }
        float* out_row = out + ((b * QH + h) * N + i) * D;
        for (std::int64_t d = 0; d < D; ++d) out_row[d] = static_cast<float>(acc[d] / sum);
      }
    }
  }
}
