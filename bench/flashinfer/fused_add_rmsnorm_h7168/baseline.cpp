// Baseline for fused_add_rmsnorm_h7168: x = hidden_states + residual (in float, not rounded),
// output = x / sqrt(mean(x^2) + 1e-6) * weight, row by row, as reference.py computes it: bfloat16
// read into float, float arithmetic, one rounding to bfloat16 on the store. The row's sums are kept
// in a float scratch row so that the second pass does not add again.
#include <cmath>
#include <cstdint>

#include "accelopt_task.h"

constexpr float kEps = 1e-6f;

extern "C" void kernel(const accelopt::bf16* __restrict hidden_states,
                       const accelopt::bf16* __restrict residual,
                       const accelopt::bf16* __restrict weight, accelopt::bf16* __restrict output) {
  float sum[hidden_size];
  for (std::int64_t row = 0; row < batch_size; ++row) {
    const accelopt::bf16* a = hidden_states + row * hidden_size;
    const accelopt::bf16* b = residual + row * hidden_size;
    accelopt::bf16* y = output + row * hidden_size;
    float squares = 0.0f;
    for (std::int64_t h = 0; h < hidden_size; ++h) {
      sum[h] = float(a[h]) + float(b[h]);
      squares += sum[h] * sum[h];
    }
    const float inverse_rms = 1.0f / std::sqrt(squares / hidden_size + kEps);
    for (std::int64_t h = 0; h < hidden_size; ++h) y[h] = sum[h] * inverse_rms * float(weight[h]);
  }
}
