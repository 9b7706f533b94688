// Gathers correctly, then overwrites its first index with one out of range (as a kernel that
// used the index array for scratch would): inputs are read-only, and an int32 input is checked
// byte for byte as a float one is.
// task: tests/adversarial/correctness/gather_rows_int32
// expect: INCORRECT_NUMERICAL
// message: wrote into its input 'index'
#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict table, const std::int32_t* __restrict index,
                       const std::int8_t* __restrict scale, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) {
    for (std::int64_t d = 0; d < D; ++d) out[i * D + d] = table[index[i] * D + d] * scale[i];
  }
  const_cast<std::int32_t*>(index)[0] = static_cast<std::int32_t>(R);
}
