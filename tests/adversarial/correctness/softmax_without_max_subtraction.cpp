// exp(score) / sum without subtracting the row's maximum first: right while scores stay below 88,
// infinite over infinite beyond. The input set large_scores goes there, and so does the task's own
// case with a wider spread (issue 23, class 5), whichever comes first.
// task: bench/cpu/bmm_softmax
// expect: INCORRECT_NUMERICAL
// message: non-finite value
#include <cmath>
#include <cstdint>
#include <vector>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  std::vector<float> row(N);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t i = 0; i < M; ++i) {
      float sum = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        float s = 0;
        for (std::int64_t k = 0; k < K; ++k)
          s += lhs[(b * M + i) * K + k] * rhs[(b * K + k) * N + j];
        sum += (row[j] = std::exp(s));
      }
      for (std::int64_t j = 0; j < N; ++j) out[(b * M + i) * N + j] = row[j] / sum;
    }
  }
}
