// AdamW without its weight-decay term (param * 1e-5): a relative error of 1e-5, which a
// relative L2 tolerance of 2e-5 let through; rtol 2e-6 and the large_param set do not.
// task: bench/cpu/adamw
// expect: INCORRECT_NUMERICAL
// message: elements
#include <cmath>
#include <cstdint>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict param, const float* __restrict grad,
                       const float* __restrict exp_avg, const float* __restrict exp_avg_sq,
                       float* __restrict out) {
  for (std::int64_t i = 0; i < M * N; ++i) {
    float m = 0.9f * exp_avg[i] + 0.1f * grad[i];
    float v = 0.999f * exp_avg_sq[i] + 0.001f * grad[i] * grad[i];
    out[i] = param[i] - 0.01f * m / (std::sqrt(1000.0f * v) + 1e-8f);
  }
}
