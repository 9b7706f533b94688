// _Pragma builds a #pragma GCC dependency, which makes the preprocessor look at another file.
// expect: REJECTED_SOURCE
// message: /etc/shadow
#include "accelopt_task.h"
_Pragma("GCC dependency \"/etc/shadow\"")
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
