// Reference for transpose_matmul: out[m, n] = sum_k lhs[k, m] * rhs[k, n], lhs [K, M], rhs [K, N].
// Row by row (i-k-j order) into a float64 accumulator row.
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  std::vector<double> row(N);
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t j = 0; j < N; ++j) row[j] = 0.0;
    for (std::int64_t k = 0; k < K; ++k) {
      double a = lhs[k * M + i];  // lhs is stored transposed
      for (std::int64_t j = 0; j < N; ++j) row[j] += a * static_cast<double>(rhs[k * N + j]);
    }
    for (std::int64_t j = 0; j < N; ++j) out[i * N + j] = static_cast<float>(row[j]);
  }
}
