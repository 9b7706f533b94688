// expect: RUNTIME_ERROR
// message: forbidden system call (openat)
#include <cstdio>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  if (std::FILE* file = std::fopen("/etc/passwd", "r")) {
    char line[256];
    if (std::fgets(line, sizeof line, file)) std::printf("%s", line);
    std::fclose(file);
  }
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
