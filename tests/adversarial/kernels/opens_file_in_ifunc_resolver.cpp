// An ifunc resolver runs while the loader relocates the kernel, before any initializer.
// expect: RUNTIME_ERROR
// message: forbidden system call (openat) while loading
#include <cstdio>
#include "accelopt_task.h"
static void helper_impl() {}
extern "C" void (*resolve_helper())() {
  if (std::FILE* file = std::fopen("/etc/passwd", "r")) std::fclose(file);
  return helper_impl;
}
extern "C" void helper() __attribute__((ifunc("resolve_helper")));
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  helper();
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
