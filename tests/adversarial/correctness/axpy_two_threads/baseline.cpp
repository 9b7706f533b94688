#include "accelopt_task.h"

constexpr int CHUNK = 1;  // knob: 1 2 4

extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; i += CHUNK) {
    for (std::int64_t j = i; j < i + CHUNK && j < N; ++j) out[j] = 2.0f * x[j] + y[j];
  }
}
