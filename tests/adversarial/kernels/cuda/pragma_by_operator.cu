// A pragma through the _Pragma operator, which no directive scan of the source sees, and one that
// makes the host compiler open a file (GCC pch_preprocess): the CUDA rules had a four-row deny-list
// and checked only the raw text (issue 44, 4). nvcc's preprocessed text holds it as a #pragma on
// the kernel's own line, where only allowed pragmas pass.
// stage: compile
// expect: REJECTED_SOURCE
// message: only the pragmas the rules list as allowed pass
#include "accelopt_task.h"

_Pragma("GCC pch_preprocess \"/usr/include/stdio.h\"")

__global__ void silu_kernel(const float* __restrict x, float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < M * N) out[i] = x[i] / (1.0f + expf(-x[i]));
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  silu_kernel<<<(M * N + 255) / 256, 256>>>(x, out);
}
