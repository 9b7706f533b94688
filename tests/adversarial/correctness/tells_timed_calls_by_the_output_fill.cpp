// Reads its output before writing it to tell a correctness call from a timed one (issue 44, 1):
// the correctness check left a plain quiet NaN there, timed turns their marker 0x7FE5A5A5. In
// timed calls it answers 1 + 3.5e-5 times silu, 1.75x the task's rel_l2: within what the witness
// allowed, and no timed turn checked against the reference here. It passed. Now every call of a
// kernel finds the same fill at the same addresses, so it is wrong in the correctness check too.
// task: bench/cpu/silu
// expect: INCORRECT_NUMERICAL
// message: relative L2 error
// time: yes
// reference checks: none
#include <cmath>
#include <cstdint>
#include <cstring>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  std::uint32_t before = 0;
  std::memcpy(&before, out, sizeof(before));
  const float scale = before == 0x7FE5A5A5u ? 1.000035f : 1.0f;
  for (std::int64_t i = 0; i < M * N; ++i) out[i] = scale * x[i] / (1.0f + std::exp(-x[i]));
}
