#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = static_cast<float>(0.5 * x[i]);
}
