// A pragma no row of the old deny-list named (issue 44, 4): pragmas now pass by allow-list.
// expect: REJECTED_SOURCE
// message: only the pragmas the rules list as allowed pass
#include "accelopt_task.h"
#pragma GCC pch_preprocess "/etc/shadow"

__global__ void silu_kernel(const float* __restrict x, float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < M * N) out[i] = x[i] / (1.0f + expf(-x[i]));
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  silu_kernel<<<(M * N + 255) / 256, 256>>>(x, out);
}
