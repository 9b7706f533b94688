#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, accelopt::bf16* __restrict y) {
  for (std::int64_t i = 0; i < N; ++i) y[i] = x[i];
}
