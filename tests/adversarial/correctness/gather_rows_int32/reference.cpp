#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict table, const std::int32_t* __restrict index,
                       const std::int8_t* __restrict scale, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) {
    for (std::int64_t d = 0; d < D; ++d) out[i * D + d] = table[index[i] * D + d] * scale[i];
  }
}
