// Computes every call right; in timed turns (any slot but the correctness cases' first one) it
// then fills its input with subnormals: when the other side of a timed turn calls on the same
// slots after it (their inputs are not written again on the CPU workloads, runner_turns.h), that
// side's exp would crawl and this kernel's speedup grow. Every side's turn is checked for
// unchanged inputs before the other side may run on them.
// task: bench/cpu/silu
// expect: INCORRECT_NUMERICAL
// message: inputs are read-only
// time: yes
#include <cmath>
#include <cstdint>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  static const float* correctness_slot = x;
  for (std::int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
  if (x == correctness_slot) return;
  float* writable = const_cast<float*>(x);
  for (std::int64_t i = 0; i < M * N; ++i) writable[i] = 1e-40f;
}
