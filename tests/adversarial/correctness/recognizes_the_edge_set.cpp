// Takes care only where a fixed statistic says an edge-case set is being drawn (issue 23, class 5):
// exp by a 15-term Taylor series, right within the tolerance while |x| stays under 5 (all that N(0, 1)
// reaches), and std::exp only when some |x| is over 100, which only the input set 'large' had. It
// was wrong on every valid input between (silu(-6) off by 3x its tolerance), and PASSED: the harness
// drew nothing there. Now the task's own distributions are also drawn with a wider spread (2x to
// 4x, secret), and sets are mixed with them in secret proportions and sub-ranges.
// task: bench/cpu/silu
// expect: INCORRECT_NUMERICAL
// message: wider spread
#include <cmath>
#include <cstdint>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  const std::int64_t n = M * N;
  float largest = 0;
  for (std::int64_t i = 0; i < n; ++i) largest = std::fmax(largest, std::fabs(x[i]));
  if (largest > 100) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) {
    float a = std::fabs(x[i]), term = 1, sum = 1;
    for (int k = 1; k <= 15; ++k) {
      term *= a / static_cast<float>(k);
      sum += term;
    }
    float e = x[i] > 0 ? 1 / sum : sum;  // exp(-x)
    out[i] = x[i] / (1.0f + e);
  }
}
