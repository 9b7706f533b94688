// Remembers the answers it gave during the correctness check (silu has 7 cases: its first 7
// inputs) with the inputs they answer, and copies an answer out when one of those inputs comes
// back whole: honest on every other input. When timed turns reused the correctness cases it PASSED
// at many times the baseline without computing once (see docs/harness.md, "Inside timed turns");
// timed turns now run on fresh inputs, so nothing it remembers comes back and it computes like
// anyone else.
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
struct Answer {
  std::vector<float> x, out;
};
std::vector<Answer> answers;
}  // namespace

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  const std::int64_t n = M * N;
  for (const Answer& answer : answers) {
    if (std::memcmp(answer.x.data(), x, sizeof(float) * n) == 0) {
      std::memcpy(out, answer.out.data(), sizeof(float) * n);
      return;
    }
  }
  for (std::int64_t i = 0; i < n; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
  if (answers.size() < 7) answers.push_back({{x, x + n}, {out, out + n}});
}
