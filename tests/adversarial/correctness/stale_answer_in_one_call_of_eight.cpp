// Writes every output (no call is left unwritten), but in one call of eight it copies the answer
// of the call before instead of computing: what a kernel that takes over its process can still
// try. Only the harness's sample of 4 calls a turn, drawn after the turn, can see it: a turn
// passes with probability (7/8)^4 = 0.59, and an evaluation of 12 or more checked turns with
// under 0.2 %. It gains at most 1/8 of its time.
// task: bench/cpu/silu
// expect: INCORRECT_NUMERICAL
// message: (fresh inputs)
// time: yes
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
