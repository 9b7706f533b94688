// The old .ctors section, which the linker folds into .init_array.
// Refused before it is compiled since issue 44 (a literal is checked as the compiler reads it;
// the sandbox refused the open at load before).
// expect: REJECTED_SOURCE
// message: 'ctors' is not allowed
#include <cstdio>
#include "accelopt_task.h"
static void grab() {
  if (std::FILE* file = std::fopen("/etc/passwd", "r")) std::fclose(file);
}
__attribute__((used, section(".ct\x6frs"))) static void (*run_grab)() = grab;
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
