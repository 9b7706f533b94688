// Honest in the correctness check, whose calls it counts (5 of the task's own cases and one per
// input set: the first 7 calls), and without the max subtraction after (issue 44, 2): exp of a
// score over 88 is infinite. Timed inputs were drawn only from the task's own distributions, whose
// scores stay small, so the timed path never met large scores and this passed. Now the timed pool
// holds a case of every edge-case family, and each tensor's blocks are drawn apart.
// task: bench/cpu/bmm_softmax
// expect: INCORRECT_NUMERICAL
// message: timed turn
// time: yes
#include <cmath>
#include <cstdint>
#include <vector>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  static long calls = 0;
  const bool careful = ++calls <= 7;
  std::vector<float> row(N);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t i = 0; i < M; ++i) {
      float largest = -INFINITY;
      for (std::int64_t j = 0; j < N; ++j) {
        float s = 0;
        for (std::int64_t k = 0; k < K; ++k)
          s += lhs[(b * M + i) * K + k] * rhs[(b * K + k) * N + j];
        row[j] = s;
        largest = std::fmax(largest, s);
      }
      const float shift = careful ? largest : 0.0f;
      float sum = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        row[j] = std::exp(row[j] - shift);
        sum += row[j];
      }
      for (std::int64_t j = 0; j < N; ++j) out[(b * M + i) * N + j] = row[j] / sum;
    }
  }
}
