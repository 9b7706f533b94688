// oneDNN's sgemm, one call per batch, on the same workload: what a user would pick instead.
// Trusted library code, run and timed by the harness like any kernel. link: -ldnnl
#include <dnnl.h>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs, float* __restrict out) {
  for (std::int64_t b = 0; b < B; ++b) {
    dnnl_sgemm('N', 'N', M, N, K, 1.0f, lhs + b * M * K, K, rhs + b * K * N, N, 0.0f, out + b * M * N, N);
  }
}
