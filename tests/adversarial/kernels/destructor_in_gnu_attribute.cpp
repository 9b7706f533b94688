// The standard attribute syntax with GCC's namespace and the `__` wrapping: [[gnu::__destructor__]]
// runs at unload, after the last call (issue 44, 5).
// expect: REJECTED_SOURCE
// message: 'destructor' is not allowed
#include <cstdio>
#include "accelopt_task.h"
[[gnu::__destructor__]] static void leave() {
  if (std::FILE* file = std::fopen("/tmp/accelopt_destructor_ran", "w")) std::fclose(file);
}
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
