// .INCBIN in upper case, with a hex escape for one letter: the assembler takes either.
// expect: REJECTED_SOURCE
// message: directive .incbin
#include "accelopt_task.h"
asm(".section .rodata\n.INC\x42IN \"/etc/passwd\"\n.previous");
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
