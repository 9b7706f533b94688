// AdamW without eps in the denominator: the same to float precision until the second moment is
// zero, then a division by zero. The input set zero_second_moment makes it zero.
// task: bench/cpu/adamw
// expect: INCORRECT_NUMERICAL
// message: input set 'zero_second_moment'
#include <cmath>
#include <cstdint>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict param, const float* __restrict grad,
                       const float* __restrict exp_avg, const float* __restrict exp_avg_sq,
                       float* __restrict out) {
  for (std::int64_t i = 0; i < M * N; ++i) {
    double m = 0.9 * exp_avg[i] + 0.1 * grad[i];
    double v = 0.999 * exp_avg_sq[i] + 0.001 * grad[i] * grad[i];
    out[i] = static_cast<float>(param[i] * (1.0 - 1e-5) - 0.01 * m / std::sqrt(1000.0 * v));
  }
}
