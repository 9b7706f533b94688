// GCC (nvcc's host compiler) reads __constructor__ as constructor: host code run when the library
// loads (issue 44, 5). The words are matched without the `__` wrapping now.
// expect: REJECTED_SOURCE
// message: 'constructor' is not allowed
#include <cstdio>
#include "accelopt_task.h"

__attribute__((__constructor__)) static void grab() {
  if (std::FILE* file = std::fopen("/etc/passwd", "r")) std::fclose(file);
}

__global__ void silu_kernel(const float* __restrict x, float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < M * N) out[i] = x[i] / (1.0f + expf(-x[i]));
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  silu_kernel<<<(M * N + 255) / 256, 256>>>(x, out);
}
