// Remembers the answer for the last few inputs it saw, whatever they were, and copies an answer out
// when one of those inputs comes back (issue 23, "within-turn memo"). When a turn's thousands of
// calls shared two input slots, nearly every call was a copy: this PASSED at about 34x the
// baseline on silu small, under the physics margin. Now every call of a turn reads inputs of its
// own, fresh for the turn, so nothing comes back and it computes like anyone else.
// task: bench/cpu/silu
// expect: PASSED
// speedup at most: 1.5
// time: yes
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include "accelopt_task.h"
namespace {
constexpr std::int64_t kCount = M * N;
struct Answer {
  std::vector<float> x, out;
};
Answer answers[4];
int next = 0;
}  // namespace
extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  for (const Answer& answer : answers) {
    if (!answer.x.empty() && std::memcmp(answer.x.data(), x, sizeof(float) * kCount) == 0) {
      std::memcpy(out, answer.out.data(), sizeof(float) * kCount);
      return;
    }
  }
  for (std::int64_t i = 0; i < kCount; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
  answers[next].x.assign(x, x + kCount);
  answers[next].out.assign(out, out + kCount);
  next = (next + 1) % 4;
}
