// expect: INCORRECT_NUMERICAL
// message: relative L2 error
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 0.0f;
}
