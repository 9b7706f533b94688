// Reference for rmsnorm_matmul: out = (x / sqrt(sum_k x^2 / K)) @ w; no eps, no gain.
#include <cmath>
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, const float* __restrict w,
                       float* __restrict out) {
  std::vector<double> normalized(K), row(N);
  for (std::int64_t i = 0; i < M; ++i) {
    double sum_squares = 0.0;
    for (std::int64_t k = 0; k < K; ++k)
      sum_squares += static_cast<double>(x[i * K + k]) * x[i * K + k];
    double rms = std::sqrt(sum_squares / K);
    for (std::int64_t k = 0; k < K; ++k) normalized[k] = x[i * K + k] / rms;
    for (std::int64_t j = 0; j < N; ++j) row[j] = 0.0;
    for (std::int64_t k = 0; k < K; ++k) {
      for (std::int64_t j = 0; j < N; ++j)
        row[j] += normalized[k] * static_cast<double>(w[k * N + j]);
    }
    for (std::int64_t j = 0; j < N; ++j) out[i * N + j] = static_cast<float>(row[j]);
  }
}
