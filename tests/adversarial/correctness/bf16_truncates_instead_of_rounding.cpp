// Stores bfloat16 by dropping the low 16 bits of the float (truncation, what a careless shift
// does) instead of rounding to nearest even: off by one bfloat16 step on about half the elements,
// which an exact tolerance sees.
// task: tests/adversarial/correctness/bf16_store
// expect: INCORRECT_NUMERICAL
// message: is wrong
#include <cstring>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, accelopt::bf16* __restrict y) {
  for (std::int64_t i = 0; i < N; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &x[i], 4);
    y[i].bits = static_cast<std::uint16_t>(bits >> 16);
  }
}
