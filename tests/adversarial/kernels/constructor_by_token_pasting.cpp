// A macro pastes the attribute's name from two pieces: no forbidden word in the source, only in
// what the preprocessor makes of it. The preprocessed kernel's own lines are checked too (issue
// 44, 5).
// expect: REJECTED_SOURCE
// message: after preprocessing: 'constructor' is not allowed
#include <cstdio>
#include "accelopt_task.h"
#define JOIN(a, b) a##b
#define AT_LOAD __attribute__((JOIN(constr, uctor)))
AT_LOAD static void grab() {
  if (std::FILE* file = std::fopen("/etc/passwd", "r")) std::fclose(file);
}
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
