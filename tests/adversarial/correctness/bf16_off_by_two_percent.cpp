// RMSNorm in bfloat16, every output 2 % too large: past bfloat16's default rtol of 1e-2, which
// bfloat16 rounding alone (at most 2^-9 relative) stays well within.
// task: tests/adversarial/correctness/rmsnorm_bf16
// expect: INCORRECT_NUMERICAL
// message: is wrong
#include <cmath>

#include "accelopt_task.h"

extern "C" void kernel(const accelopt::bf16* __restrict x, const accelopt::bf16* __restrict w,
                       accelopt::bf16* __restrict y) {
  for (std::int64_t i = 0; i < M; ++i) {
    float squares = 0;
    for (std::int64_t h = 0; h < H; ++h) squares += float(x[i * H + h]) * float(x[i * H + h]);
    float scale = 1.02f / std::sqrt(squares / H + 1e-6f);
    for (std::int64_t h = 0; h < H; ++h) y[i * H + h] = float(x[i * H + h]) * scale * float(w[h]);
  }
}
