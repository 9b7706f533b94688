// RMSNorm in bfloat16 that never writes its last row: outputs start as bfloat16 NaN, so the
// unwritten row reads back as NaN where the reference has numbers.
// task: tests/adversarial/correctness/rmsnorm_bf16
// expect: INCORRECT_NUMERICAL
// message: some were never written
#include <cmath>

#include "accelopt_task.h"

extern "C" void kernel(const accelopt::bf16* __restrict x, const accelopt::bf16* __restrict w,
                       accelopt::bf16* __restrict y) {
  for (std::int64_t i = 0; i + 1 < M; ++i) {
    float squares = 0;
    for (std::int64_t h = 0; h < H; ++h) squares += float(x[i * H + h]) * float(x[i * H + h]);
    float scale = 1.0f / std::sqrt(squares / H + 1e-6f);
    for (std::int64_t h = 0; h < H; ++h) y[i * H + h] = float(x[i * H + h]) * scale * float(w[h]);
  }
}
