// Baseline for rope_single_freq_apply: for each row pair (d, d + D/2) the rotation is applied along
// the columns TILE_T at a time; the inner loop is unit-stride in every array, so it vectorizes.
#include <algorithm>
#include <cstdint>

#include "accelopt_task.h"

constexpr int TILE_T = 2048;  // knob: 256 512 1024 2048 4096 8192

extern "C" void kernel(const float* __restrict x, const float* __restrict cos_table,
                       const float* __restrict sin_table, float* __restrict out) {
  constexpr std::int64_t columns = B * H * N;
  for (std::int64_t t0 = 0; t0 < columns; t0 += TILE_T) {
    const std::int64_t t1 = std::min<std::int64_t>(t0 + TILE_T, columns);
    for (std::int64_t d = 0; d < HALF_D; ++d) {
      const float* __restrict x0 = x + d * columns;
      const float* __restrict x1 = x + (d + HALF_D) * columns;
      const float* __restrict c = cos_table + d * columns;
      const float* __restrict s = sin_table + d * columns;
      float* __restrict y0 = out + d * columns;
      float* __restrict y1 = out + (d + HALF_D) * columns;
      for (std::int64_t t = t0; t < t1; ++t) {
        y0[t] = x0[t] * c[t] - x1[t] * s[t];
        y1[t] = x0[t] * s[t] + x1[t] * c[t];
      }
    }
  }
}
