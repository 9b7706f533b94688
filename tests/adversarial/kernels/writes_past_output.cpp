// expect: INCORRECT_SHAPE
// message: wrote outside output 'out'
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N + 8; ++i) out[i] = 2.0f * x[i % N] + y[i % N];
}
