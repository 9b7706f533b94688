// Reference for silu: out = x / (1 + exp(-x)), elementwise.
#include <cmath>
#include <cstdint>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  for (std::int64_t i = 0; i < M * N; ++i) {
    double value = x[i];
    out[i] = static_cast<float>(value / (1.0 + std::exp(-value)));
  }
}
