// A backslash-newline inside the directive's name hides cuBLAS from a line-by-line reader.
// expect: REJECTED_SOURCE
// message: #include <cublas_v2.h> is not allowed
#incl\
ude <cublas_v2.h>
#include "accelopt_task.h"

__global__ void silu_kernel(const float* __restrict x, float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < M * N) out[i] = x[i] / (1.0f + expf(-x[i]));
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  static cublasHandle_t handle = nullptr;
  if (handle == nullptr) cublasCreate(&handle);
  silu_kernel<<<(M * N + 255) / 256, 256>>>(x, out);
}
