// Hostile: the host stub reads a host file; it computes the right answer only if the read works,
// so a sandbox that lets it through shows up as PASSED.
#include <cstdio>

#include "accelopt_task.h"

__global__ void silu_kernel(const float* x, float* out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < M * N) out[i] = x[i] / (1.0f + expf(-x[i]));
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  std::FILE* file = std::fopen("/etc/hostname", "r");
  if (file == nullptr) return;
  std::fclose(file);
  silu_kernel<<<(M * N + 255) / 256, 256>>>(x, out);
}
