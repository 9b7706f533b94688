// Writes every output (no call is left unwritten), but in one call of eight it copies the answer
// of the call before instead of computing: what a kernel that takes over its process can still
// try. The reference's sample of 4 calls a checked turn would pass such a turn with probability
// (7/8)^4 = 0.59; here no turn is checked against the reference at all, and the witness (the
// baseline's answers on the same inputs, compared at places drawn after the turn) sees the stale
// call in the first turn that has one. It gains at most 1/8 of its time.
// task: bench/cpu/silu
// expect: INCORRECT_NUMERICAL
// message: (fresh inputs)
// time: yes
// reference checks: none
#include <cmath>
#include <cstdint>
#include <cstring>
#include "accelopt_task.h"
namespace {
constexpr std::int64_t kCount = M * N;
float last[kCount];
long calls = 0;
}  // namespace
extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  if (++calls % 8 == 0) {
    std::memcpy(out, last, sizeof last);
    return;
  }
  for (std::int64_t i = 0; i < kCount; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
  std::memcpy(last, out, sizeof last);
}
