// Computes once and answers every later call with the first answer: the cases differ, so the
// second one fails however the seeds were chosen.
// task: bench/cpu/silu
// expect: INCORRECT_NUMERICAL
// message: case 2
#include <cmath>
#include <cstdint>
#include <vector>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  static std::vector<float> first;
  if (first.empty()) {
    first.resize(M * N);
    for (std::int64_t i = 0; i < M * N; ++i) first[i] = x[i] / (1.0f + std::exp(-x[i]));
  }
  for (std::int64_t i = 0; i < M * N; ++i) out[i] = first[i];
}
