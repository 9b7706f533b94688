#include "accelopt_task.h"

extern "C" void kernel(const accelopt::fp16* __restrict x, const accelopt::fp16* __restrict y,
                       accelopt::fp16* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * accelopt::to_float(x[i]) + float(y[i]);
}
