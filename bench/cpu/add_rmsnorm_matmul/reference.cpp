// Reference for add_rmsnorm_matmul: y = x + z; out = (y / sqrt(sum_k y^2 / K + 1e-5) * g) @ w.
#include <cmath>
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, const float* __restrict z,
                       const float* __restrict g, const float* __restrict w,
                       float* __restrict out) {
  std::vector<double> y(K), row(N);
  for (std::int64_t i = 0; i < M; ++i) {
    double sum_squares = 0.0;
    for (std::int64_t k = 0; k < K; ++k) {
      y[k] = static_cast<double>(x[i * K + k]) + static_cast<double>(z[i * K + k]);
      sum_squares += y[k] * y[k];
    }
    double rms = std::sqrt(sum_squares / K + 1e-5);
    for (std::int64_t k = 0; k < K; ++k) y[k] = y[k] / rms * g[k];
    for (std::int64_t j = 0; j < N; ++j) row[j] = 0.0;
    for (std::int64_t k = 0; k < K; ++k) {
      for (std::int64_t j = 0; j < N; ++j) row[j] += y[k] * static_cast<double>(w[k * N + j]);
    }
    for (std::int64_t j = 0; j < N; ++j) out[i * N + j] = static_cast<float>(row[j]);
  }
}
