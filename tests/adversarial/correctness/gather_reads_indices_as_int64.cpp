// Reads the int32 indices as int64 (each pair of indices one row number, taken modulo the table's
// rows so that every read stays in the table): rows the definition did not ask for.
// task: tests/adversarial/correctness/gather_rows_int32
// expect: INCORRECT_NUMERICAL
// message: is wrong
#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict table, const std::int32_t* __restrict index,
                       const std::int8_t* __restrict scale, float* __restrict out) {
  const auto* wide = reinterpret_cast<const std::uint64_t*>(index);
  for (std::int64_t i = 0; i < N; ++i) {
    auto row = static_cast<std::int64_t>(wide[i / 2] % R);
    for (std::int64_t d = 0; d < D; ++d) out[i * D + d] = table[row * D + d] * scale[i];
  }
}
