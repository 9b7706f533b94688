// CUDA baseline for adamw: one thread per element, the update written out as in the reference.
#include "accelopt_task.h"

constexpr int BLOCK = 256;  // knob: 128 256 512 1024

__global__ void adamw_kernel(const float* __restrict param, const float* __restrict grad,
                             const float* __restrict exp_avg, const float* __restrict exp_avg_sq,
                             float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= M * N) return;
  float g = grad[i];
  float decayed = param[i] * (1.0f - 1e-5f);
  float m = 0.9f * exp_avg[i] + 0.1f * g;
  float v = 0.999f * exp_avg_sq[i] + 0.001f * g * g;
  out[i] = decayed - 0.01f * m / (sqrtf(1000.0f * v) + 1e-8f);
}

extern "C" void kernel(const float* __restrict param, const float* __restrict grad,
                       const float* __restrict exp_avg, const float* __restrict exp_avg_sq,
                       float* __restrict out) {
  adamw_kernel<<<(M * N + BLOCK - 1) / BLOCK, BLOCK>>>(param, grad, exp_avg, exp_avg_sq, out);
}
