// Honest in the correctness check, whose calls it counts (5 of the task's own cases and one per
// input set: the first 7 calls), then 1 + 3.5e-5 times silu: 1.75x the task's rel_l2 (issue 44,
// 3). The witness let differences up to 2.5x the tolerance through without asking the reference,
// and no timed turn is checked against the reference here: it passed. Now any difference beyond
// the tolerance goes to the reference, and one timed turn of every evaluation is checked whole.
// task: bench/cpu/silu
// expect: INCORRECT_NUMERICAL
// message: (fresh inputs)
// time: yes
// reference checks: none
#include <cmath>
#include <cstdint>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  static long calls = 0;
  const float scale = ++calls <= 7 ? 1.0f : 1.000035f;
  for (std::int64_t i = 0; i < M * N; ++i) out[i] = scale * x[i] / (1.0f + std::exp(-x[i]));
}
