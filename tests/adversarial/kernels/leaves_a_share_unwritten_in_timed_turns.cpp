// Writes every element where the correctness check's call wrote (its first output pointer), and
// elsewhere (the timed turns' other slots) skips one element in 64: the places where unwritten
// outputs are looked for are drawn after each turn, so 1024 of them find a share of 1/64 for
// certain in practice ((63/64)^1024 < 1e-7).
// Since issue 44 the correctness cases are a turn in the timed turns' slots, so its second case
// already lies in another slot: refused before timing.
// expect: INCORRECT_NUMERICAL
// message: never written
// time: yes
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y,
                       float* __restrict out) {
  static float* first = out;
  for (std::int64_t i = 0; i < N; ++i) {
    if (out != first && i % 64 == 63) continue;
    out[i] = 2.0f * x[i] + y[i];
  }
}
