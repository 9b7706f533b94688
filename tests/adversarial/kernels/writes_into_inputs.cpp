// expect: INCORRECT_NUMERICAL
// message: wrote into its input 'y'
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  float* scratch = const_cast<float*>(y);
  for (std::int64_t i = 0; i < N; ++i) {
    out[i] = 2.0f * x[i] + y[i];
    scratch[i] = out[i];
  }
}
