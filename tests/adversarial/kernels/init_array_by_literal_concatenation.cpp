// A section name from two adjacent string literals, which the compiler joins: ".init_arr" "ay"
// holds no forbidden word as written (issue 44, 5). Literals are now joined and decoded as the
// compiler reads them.
// expect: REJECTED_SOURCE
// message: 'init_array' is not allowed
#include <cstdio>
#include "accelopt_task.h"
static void grab() {
  if (std::FILE* file = std::fopen("/etc/passwd", "r")) std::fclose(file);
}
__attribute__((used, section(".init_arr" "ay"))) static void (*run_grab)() = grab;
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
