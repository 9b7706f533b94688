// Constant evaluation that would take the compiler hours: the compiler's CPU limit must stop it,
// as the kernel's failure (not MACHINE_BUSY: it works the whole time).
// expect: COMPILE_ERROR
// message: limit
#include "accelopt_task.h"
constexpr long spin() {
  long total = 0;
  for (long i = 0; i < 200000; ++i)
    for (long j = 0; j < 200000; ++j) total += i ^ j;
  return total;
}
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict out) {
  constexpr long value = spin();
  out[0] = static_cast<float>(value);
}
