// .include in inline assembly reads a file as assembler source; its lines come back as errors.
// expect: REJECTED_SOURCE
// message: directive .include
#include "accelopt_task.h"
asm(".inc" "lude \"/etc/passwd\"");
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
