// A global initializer runs inside dlopen, before the first call; it keeps the file for the calls.
// expect: RUNTIME_ERROR
// message: forbidden system call (openat) while loading
#include <cstdio>
#include "accelopt_task.h"
static std::FILE* stolen = std::fopen("/etc/passwd", "r");
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  char line[256];
  if (stolen && std::fgets(line, sizeof line, stolen)) std::printf("%s", line);
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
