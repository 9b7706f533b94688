// A raw string holding a quote and a comment opener, to lose a scanner that does not know them.
// expect: REJECTED_SOURCE
// message: is not allowed
#include "accelopt_task.h"
const char* decoy = R"x(" /* )x";
#include "/etc/passwd"
const char* decoy_end = "*/";
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
