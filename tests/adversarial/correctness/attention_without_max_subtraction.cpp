// Attention whose softmax skips the max subtraction: fine for scores of a few units, infinite
// over infinite for the input set large_scores, and less accurate than the tolerance already for
// the task's own case with a wider spread (issue 23, class 5), whichever comes first.
// task: bench/cpu/gqa_full
// expect: INCORRECT_NUMERICAL
// message: output 'out'
#include <cmath>
#include <cstdint>
#include <vector>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict q, const float* __restrict k,
                       const float* __restrict v, float* __restrict out) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  std::vector<float> weights(N);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t h = 0; h < QH; ++h) {
      const std::int64_t kv = h / (QH / KH);
      for (std::int64_t i = 0; i < N; ++i) {
        float sum = 0;
        for (std::int64_t j = 0; j < N; ++j) {
          float dot = 0;
          for (std::int64_t d = 0; d < D; ++d)
            dot += q[((b * N + i) * QH + h) * D + d] * k[((b * N + j) * KH + kv) * D + d];
          sum += (weights[j] = std::exp(dot * scale));
        }
        for (std::int64_t d = 0; d < D; ++d) {
          float acc = 0;
          for (std::int64_t j = 0; j < N; ++j)
            acc += weights[j] * v[((b * N + j) * KH + kv) * D + d];
          out[((b * QH + h) * N + i) * D + d] = acc / sum;
        }
      }
    }
  }
}
