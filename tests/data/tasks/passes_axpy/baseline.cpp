// For tests whose outcome depends on timing (docs/contributing.md, "Tests that time kernels"): the
// whole computation runs PASSES times, each element through a volatile so that the compiler keeps
// every pass, so each step of the knob makes the kernel about 3x faster or slower, by design and
// far beyond a loaded machine's noise. The tuner's every move is such a step.
#include <cstdint>

#include "accelopt_task.h"

constexpr int PASSES = 3;  // knob: 1 3 9

extern "C" void kernel(const float* __restrict x, const float* __restrict y,
                       float* __restrict out) {
  for (int pass = 0; pass < PASSES; ++pass) {
    for (std::int64_t i = 0; i < N; ++i) {
      volatile float twice = 2.0f * x[i];
      out[i] = twice + y[i];
    }
  }
}
