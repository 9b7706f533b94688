// %: is # to the preprocessor.
// expect: REJECTED_SOURCE
// message: is not allowed
%:include "/etc/passwd"
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
