// expect: RUNTIME_ERROR
// message: forbidden system call
// unharmed: /tmp/accelopt-adversarial-pwned
#include <fstream>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  std::ofstream("/tmp/accelopt-adversarial-pwned") << "pwned\n";
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
