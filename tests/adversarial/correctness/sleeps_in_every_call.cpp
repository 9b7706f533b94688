// Computes silu quickly (a polynomial exp that vectorizes), then sleeps 100 ms in every call
// (std::this_thread::sleep_for: nanosleep, which the sandbox allows). One-thread tasks were timed
// on the runner's CPU time alone, so the sleep was free: it PASSED at 5.2x the baseline on silu's
// CPU workload while each call took 105 ms against the baseline's 26. A turn that spends its time
// blocked off the CPU is now timed on the wall clock (docs/harness.md, "Wall time and CPU time"):
// 0.25x to 0.28x on a quiet machine. (On silu small a sleep's own CPU time, about 28 µs here,
// outweighs the 4 µs work.) The bound is 1.0, not 0.3: another evaluation timed on the same core
// (ctest -j2) stretches the baseline's wall time and not the sleep (0.52x so measured); any figure
// under 1.0 shows the sleep charged, since free it read 5.2x.
// task: bench/cpu/silu
// expect: PASSED
// speedup at most: 1.0
// time: yes
// workload: cpu
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>

#include "accelopt_task.h"

namespace {
// exp(v) for v in [-87, 87]: 2^n times a degree-6 polynomial of the remainder.
inline float fast_exp(float v) {
  v = v < -87.0f ? -87.0f : (v > 87.0f ? 87.0f : v);
  float n = (v * 1.44269504f + 12582912.0f) - 12582912.0f;  // round to nearest
  float r = v - n * 0.693145752f - n * 1.42860677e-6f;
  float p =
      1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 +
                                          r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720))))));
  std::int32_t bits = (static_cast<std::int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}
}  // namespace

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  for (std::int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + fast_exp(-x[i]));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}
