// RMSNorm in bfloat16 that computes only on the first call of a turn (more than 20 µs since its
// last call) and returns at once on the others: every call checked alone is right; in a timed
// turn the skipped calls' outputs still hold bfloat16's unwritten marker.
// Since issue 44 the correctness cases are themselves a turn (a slot each, as timed turns), so
// this is refused there, before timing: the calls it skips leave their outputs unwritten.
// task: tests/adversarial/correctness/rmsnorm_bf16
// expect: INCORRECT_NUMERICAL
// message: never written
// time: yes
#include <chrono>
#include <cmath>

#include "accelopt_task.h"

extern "C" void kernel(const accelopt::bf16* __restrict x, const accelopt::bf16* __restrict w,
                       accelopt::bf16* __restrict y) {
  using Clock = std::chrono::steady_clock;
  static Clock::time_point last;
  if (Clock::now() - last > std::chrono::microseconds(20)) {
    for (std::int64_t i = 0; i < M; ++i) {
      float squares = 0;
      for (std::int64_t h = 0; h < H; ++h) squares += float(x[i * H + h]) * float(x[i * H + h]);
      float scale = 1.0f / std::sqrt(squares / H + 1e-6f);
      for (std::int64_t h = 0; h < H; ++h) {
        y[i * H + h] = float(x[i * H + h]) * scale * float(w[h]);
      }
    }
  }
  last = Clock::now();
}
