// Stores the float16 output with bfloat16's bit layout (the top 16 bits of the float): the wrong
// 16-bit format, read back by the harness as float16 values far from the reference's.
// task: tests/adversarial/correctness/axpy_fp16
// expect: INCORRECT_NUMERICAL
// message: is wrong
#include <cstring>

#include "accelopt_task.h"

extern "C" void kernel(const _Float16* __restrict x, const _Float16* __restrict y,
                       _Float16* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) {
    float value = 2.0f * float(x[i]) + float(y[i]);
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    auto top = static_cast<std::uint16_t>(bits >> 16);
    std::memcpy(&out[i], &top, 2);
  }
}
