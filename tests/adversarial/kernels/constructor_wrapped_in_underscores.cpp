// GCC reads an attribute's name with or without a `__` on each side: __constructor__ is
// constructor, and the forbidden words once matched only the whole identifier (issue 44, 5). The
// load-time code then ran in the sandbox; the rules now refuse it before it is compiled.
// expect: REJECTED_SOURCE
// message: 'constructor' is not allowed
#include <cstdio>
#include "accelopt_task.h"
__attribute__((__constructor__)) static void grab() {
  if (std::FILE* file = std::fopen("/etc/passwd", "r")) std::fclose(file);
}
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
