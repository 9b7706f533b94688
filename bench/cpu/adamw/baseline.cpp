// Baseline for adamw: one AdamW step, elementwise, in float32, CHUNK elements at a time: the
// moment updates of a chunk go to small buffers (loops that vectorize), then the square roots and
// the update are formed.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "accelopt_task.h"

constexpr int CHUNK = 1024;  // knob: 64 256 1024 4096 16384

extern "C" void kernel(const float* __restrict param, const float* __restrict grad,
                       const float* __restrict exp_avg, const float* __restrict exp_avg_sq,
                       float* __restrict out) {
  float m_new[CHUNK], v_scaled[CHUNK];
  for (std::int64_t i0 = 0; i0 < M * N; i0 += CHUNK) {
    const std::int64_t count = std::min<std::int64_t>(CHUNK, M * N - i0);
    const float* __restrict g = grad + i0;
    for (std::int64_t i = 0; i < count; ++i) {
      m_new[i] = 0.9f * exp_avg[i0 + i] + 0.1f * g[i];
      v_scaled[i] = 1000.0f * (0.999f * exp_avg_sq[i0 + i] + 0.001f * g[i] * g[i]);
    }
    for (std::int64_t i = 0; i < count; ++i) {
      out[i0 + i] =
          param[i0 + i] * (1.0f - 1e-5f) - 0.01f * m_new[i] / (std::sqrt(v_scaled[i]) + 1e-8f);
    }
  }
}
