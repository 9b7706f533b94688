// Reference for rope_single_freq_apply: x [D, T] with T = B*H*N, tables [D/2, T];
// out[d] = x[d] * cos - x[d + D/2] * sin, out[d + D/2] = x[d] * sin + x[d + D/2] * cos for d < D/2.
#include <cstdint>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, const float* __restrict cos_table,
                       const float* __restrict sin_table, float* __restrict out) {
  const std::int64_t columns = B * H * N;
  for (std::int64_t d = 0; d < HALF_D; ++d) {
    for (std::int64_t t = 0; t < columns; ++t) {
      double x0 = x[d * columns + t], x1 = x[(d + HALF_D) * columns + t];
      double c = cos_table[d * columns + t], s = sin_table[d * columns + t];
      out[d * columns + t] = static_cast<float>(x0 * c - x1 * s);
      out[(d + HALF_D) * columns + t] = static_cast<float>(x0 * s + x1 * c);
    }
  }
}
