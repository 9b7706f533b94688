// Takes the bfloat16 output for a float array and writes M*H floats: twice its bytes, past the end.
// task: tests/adversarial/correctness/rmsnorm_bf16
// expect: INCORRECT_SHAPE
// message: wrote outside output 'y'
#include <cmath>

#include "accelopt_task.h"

extern "C" void kernel(const accelopt::bf16* __restrict x, const accelopt::bf16* __restrict w,
                       accelopt::bf16* __restrict y) {
  auto* out = reinterpret_cast<float*>(y);
  for (std::int64_t i = 0; i < M; ++i) {
    float squares = 0;
    for (std::int64_t h = 0; h < H; ++h) squares += float(x[i * H + h]) * float(x[i * H + h]);
    float scale = 1.0f / std::sqrt(squares / H + 1e-6f);
    for (std::int64_t h = 0; h < H; ++h) out[i * H + h] = float(x[i * H + h]) * scale * float(w[h]);
  }
}
