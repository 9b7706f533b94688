// Reference for matmul_add_rmsnorm: y = x @ w + z; out = y * g / sqrt(mean_n y^2 + 1e-5).
#include <cmath>
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, const float* __restrict w,
                       const float* __restrict z, const float* __restrict g,
                       float* __restrict out) {
  std::vector<double> y(N);
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t j = 0; j < N; ++j) y[j] = 0.0;
    for (std::int64_t k = 0; k < K; ++k) {
      double a = x[i * K + k];
      for (std::int64_t j = 0; j < N; ++j) y[j] += a * static_cast<double>(w[k * N + j]);
    }
    double sum_squares = 0.0;
    for (std::int64_t j = 0; j < N; ++j) {
      y[j] += z[i * N + j];
      sum_squares += y[j] * y[j];
    }
    double rms = std::sqrt(sum_squares / N + 1e-5);
    for (std::int64_t j = 0; j < N; ++j) out[i * N + j] = static_cast<float>(y[j] * g[j] / rms);
  }
}
