// Baseline for silu: out = x / (1 + exp(-x)), elementwise, CHUNK elements at a time: the
// denominators of a chunk go to a small buffer first (std::exp is a library call, one element at
// a time), then a second loop, which vectorizes, forms the quotients.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "accelopt_task.h"

constexpr int CHUNK = 1024;  // knob: 64 256 1024 4096 16384

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  float denominator[CHUNK];
  for (std::int64_t i0 = 0; i0 < M * N; i0 += CHUNK) {
    const std::int64_t count = std::min<std::int64_t>(CHUNK, M * N - i0);
    for (std::int64_t i = 0; i < count; ++i) denominator[i] = 1.0f + std::exp(-x[i0 + i]);
    for (std::int64_t i = 0; i < count; ++i) out[i0 + i] = x[i0 + i] / denominator[i];
  }
}
