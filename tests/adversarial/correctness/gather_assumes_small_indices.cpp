// Gathers by index masked to 8 bits, as if the table had 256 rows: right whenever every index is
// below 256, wrong for the indices the definition draws up to 511.
// task: tests/adversarial/correctness/gather_rows_int32
// expect: INCORRECT_NUMERICAL
// message: is wrong
#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict table, const std::int32_t* __restrict index,
                       const std::int8_t* __restrict scale, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) {
    std::int64_t row = index[i] & 255;
    for (std::int64_t d = 0; d < D; ++d) out[i * D + d] = table[row * D + d] * scale[i];
  }
}
