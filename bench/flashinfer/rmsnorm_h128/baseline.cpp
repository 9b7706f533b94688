// Baseline for rmsnorm_h128: output = x / sqrt(mean(x^2) + 1e-6) * weight, row by row, as
// reference.py computes it: bfloat16 read into float, float arithmetic, one rounding to bfloat16
// on the store.
#include <cmath>
#include <cstdint>

#include "accelopt_task.h"

constexpr float kEps = 1e-6f;

extern "C" void kernel(const accelopt::bf16* __restrict hidden_states,
                       const accelopt::bf16* __restrict weight, accelopt::bf16* __restrict output) {
  float gain[hidden_size];
  for (std::int64_t h = 0; h < hidden_size; ++h) gain[h] = weight[h];
  for (std::int64_t row = 0; row < batch_size; ++row) {
    const accelopt::bf16* x = hidden_states + row * hidden_size;
    accelopt::bf16* y = output + row * hidden_size;
    float squares = 0.0f;
    for (std::int64_t h = 0; h < hidden_size; ++h) {
      float value = x[h];
      squares += value * value;
    }
    const float inverse_rms = 1.0f / std::sqrt(squares / hidden_size + kEps);
    for (std::int64_t h = 0; h < hidden_size; ++h) y[h] = float(x[h]) * inverse_rms * gain[h];
  }
}
