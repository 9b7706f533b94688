// A correct softmax whose entries below 1e-6 are set to zero (the tail of each row, often half of
// it): they hold so little of the row's mass that the relative L2 error stays below 2e-5; every
// one of them is wrong.
// task: bench/cpu/bmm_softmax
// expect: INCORRECT_NUMERICAL
// message: elements
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  std::vector<float> row(N);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t i = 0; i < M; ++i) {
      for (std::int64_t j = 0; j < N; ++j) {
        float s = 0;
        for (std::int64_t k = 0; k < K; ++k)
          s += lhs[(b * M + i) * K + k] * rhs[(b * K + k) * N + j];
        row[j] = s;
      }
      float top = *std::max_element(row.begin(), row.end()), sum = 0;
      for (auto& value : row) sum += (value = std::exp(value - top));
      for (auto& value : row) value /= sum;
      for (std::int64_t j = 0; j < N; ++j)
        out[(b * M + i) * N + j] = row[j] < 1e-6f ? 0.0f : row[j];
    }
  }
}
