// %: is # to the preprocessor: Thrust, a library outside the allow-list, comes in unseen by a
// reader that looks for '#'.
// expect: REJECTED_SOURCE
// message: #include <thrust/sort.h> is not allowed
%:include <thrust/sort.h>
#include "accelopt_task.h"

__global__ void silu_kernel(const float* __restrict x, float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < M * N) out[i] = x[i] / (1.0f + expf(-x[i]));
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  silu_kernel<<<(M * N + 255) / 256, 256>>>(x, out);
}
