// Reference for lora: out = x @ w + (x @ a) @ b.
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, const float* __restrict w,
                       const float* __restrict a, const float* __restrict b,
                       float* __restrict out) {
  std::vector<double> down(R), row(N);
  for (std::int64_t i = 0; i < M; ++i) {
    // down = x[i, :] @ a
    for (std::int64_t r = 0; r < R; ++r) down[r] = 0.0;
    for (std::int64_t k = 0; k < K; ++k) {
      double xv = x[i * K + k];
      for (std::int64_t r = 0; r < R; ++r) down[r] += xv * static_cast<double>(a[k * R + r]);
    }
    // row = x[i, :] @ w + down @ b
    for (std::int64_t j = 0; j < N; ++j) row[j] = 0.0;
    for (std::int64_t k = 0; k < K; ++k) {
      double xv = x[i * K + k];
      for (std::int64_t j = 0; j < N; ++j) row[j] += xv * static_cast<double>(w[k * N + j]);
    }
    for (std::int64_t r = 0; r < R; ++r) {
      for (std::int64_t j = 0; j < N; ++j) row[j] += down[r] * static_cast<double>(b[r * N + j]);
    }
    for (std::int64_t j = 0; j < N; ++j) out[i * N + j] = static_cast<float>(row[j]);
  }
}
