// .incbin built from adjacent and stringized literals: no word "incbin" appears in the source.
// The preprocessed kernel's literals, joined as the compiler joins them, hold the word (issue 44);
// the assembly check (.incbin) stands behind.
// expect: REJECTED_SOURCE
// message: 'incbin' is not allowed
#include "accelopt_task.h"
#define STRINGIZE(x) #x
asm(".section .rodata\n.global leaked\nleaked: " STRINGIZE(.inc) "bin \"/etc/shadow\"\n.previous");
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
