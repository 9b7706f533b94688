// RMSNorm in float from bfloat16 storage: the straightforward loops.
#include <cmath>

#include "accelopt_task.h"

extern "C" void kernel(const accelopt::bf16* __restrict x, const accelopt::bf16* __restrict w,
                       accelopt::bf16* __restrict y) {
  for (std::int64_t i = 0; i < M; ++i) {
    float squares = 0;
    for (std::int64_t h = 0; h < H; ++h) {
      float value = x[i * H + h];
      squares += value * value;
    }
    float scale = 1.0f / std::sqrt(squares / H + 1e-6f);
    for (std::int64_t h = 0; h < H; ++h) y[i * H + h] = float(x[i * H + h]) * scale * float(w[h]);
  }
}
