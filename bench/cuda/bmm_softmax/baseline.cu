// CUDA baseline for bmm_softmax: one block per output row (b, i): its scores lhs[b,i,:] @ rhs[b]
// go to shared memory, then a block-wide max and sum give the softmax.
#include "accelopt_task.h"

constexpr int BLOCK = 256;  // knob: 128 256 512

__device__ float block_reduce(float value, bool take_max) {
  __shared__ float partial[BLOCK];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      float other = partial[threadIdx.x + stride];
      partial[threadIdx.x] =
          take_max ? fmaxf(partial[threadIdx.x], other) : partial[threadIdx.x] + other;
    }
    __syncthreads();
  }
  float result = partial[0];
  __syncthreads();
  return result;
}

__global__ void bmm_softmax_kernel(const float* __restrict lhs, const float* __restrict rhs,
                                   float* __restrict out) {
  __shared__ float scores[N];
  std::int64_t b = blockIdx.x / M, i = blockIdx.x % M;
  const float* a = lhs + (b * M + i) * K;
  const float* w = rhs + b * K * N;
  float local_max = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < N; j += BLOCK) {
    float sum = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) sum += a[k] * w[k * N + j];
    scores[j] = sum;
    local_max = fmaxf(local_max, sum);
  }
  float row_max = block_reduce(local_max, true);
  float local_sum = 0.0f;
  for (std::int64_t j = threadIdx.x; j < N; j += BLOCK) {
    scores[j] = expf(scores[j] - row_max);
    local_sum += scores[j];
  }
  float row_sum = block_reduce(local_sum, false);
  for (std::int64_t j = threadIdx.x; j < N; j += BLOCK) {
    out[(b * M + i) * N + j] = scores[j] / row_sum;
  }
}

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  bmm_softmax_kernel<<<B * M, BLOCK>>>(lhs, rhs, out);
}
