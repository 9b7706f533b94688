// expect: RUNTIME_ERROR
// message: bad_alloc
#include <cstdlib>
#include <vector>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  std::vector<char> huge(100ull << 30, 1);
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i] + huge[i] * 0.0f;
}
