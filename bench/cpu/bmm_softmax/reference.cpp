// Reference for bmm_softmax: out[b] = softmax over the last axis of lhs[b] @ rhs[b]
// (max-subtracted).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  std::vector<double> row(N);
  for (std::int64_t b = 0; b < B; ++b) {
    const float* a_mat = lhs + b * M * K;
    const float* b_mat = rhs + b * K * N;
    float* c_mat = out + b * M * N;
    for (std::int64_t i = 0; i < M; ++i) {
      // scores: row = lhs[b, i, :] @ rhs[b]
      for (std::int64_t j = 0; j < N; ++j) row[j] = 0.0;
      for (std::int64_t k = 0; k < K; ++k) {
        double a = a_mat[i * K + k];
        for (std::int64_t j = 0; j < N; ++j) row[j] += a * static_cast<double>(b_mat[k * N + j]);
      }
      // softmax over j
      double max_score = row[0];
      for (std::int64_t j = 1; j < N; ++j) max_score = std::max(max_score, row[j]);
      double sum = 0.0;
      for (std::int64_t j = 0; j < N; ++j) {
        row[j] = std::exp(row[j] - max_score);
        sum += row[j];
      }
      for (std::int64_t j = 0; j < N; ++j) c_mat[i * N + j] = static_cast<float>(row[j] / sum);
    }
  }
}
