// RMS norm without its eps: the same to float precision until a row is all zeros, then 0 / 0.
// task: bench/cpu/add_rmsnorm_matmul
// expect: INCORRECT_NUMERICAL
// message: input set 'zeros'
#include <cmath>
#include <cstdint>
#include <vector>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict z,
                       const float* __restrict g, const float* __restrict w,
                       float* __restrict out) {
  std::vector<double> y(K);
  for (std::int64_t i = 0; i < M; ++i) {
    double squares = 0;
    for (std::int64_t k = 0; k < K; ++k)
      squares += (y[k] = double(x[i * K + k]) + z[i * K + k]) * y[k];
    double rms = std::sqrt(squares / K);
    for (std::int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (std::int64_t k = 0; k < K; ++k) acc += y[k] / rms * g[k] * w[k * N + j];
      out[i * N + j] = static_cast<float>(acc);
    }
  }
}
