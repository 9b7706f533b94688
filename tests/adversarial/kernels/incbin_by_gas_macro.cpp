// The assembler's own macros paste the directive together: .inc\a with a = bin.
// expect: REJECTED_SOURCE
// message: directive .macro
#include "accelopt_task.h"
asm(".macro grab part\n.section .rodata\n.inc\\part \"/etc/shadow\"\n.previous\n.endm\ngrab bin");
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
