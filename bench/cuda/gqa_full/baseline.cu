// CUDA baseline for gqa_full: one block per (batch, query head, query row): the row's scores go
// to shared memory, a block-wide max and sum give the softmax, and thread d sums column d of v.
#include "accelopt_task.h"

constexpr int BLOCK = 128;  // knob: 64 128 256

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

__global__ void gqa_kernel(const float* __restrict q, const float* __restrict k,
                           const float* __restrict v, float* __restrict out) {
  __shared__ float scores[N];
  std::int64_t row = blockIdx.x;  // ((b * QH) + h) * N + i
  std::int64_t i = row % N, h = (row / N) % QH, b = row / (N * QH);
  std::int64_t kv = h / (QH / KH);
  const float scale = rsqrtf(static_cast<float>(D));
  const float* q_row = q + ((b * N + i) * QH + h) * D;
  float local_max = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < N; j += BLOCK) {
    const float* k_row = k + ((b * N + j) * KH + kv) * D;
    float dot = 0.0f;
    for (std::int64_t d = 0; d < D; ++d) dot += q_row[d] * k_row[d];
    scores[j] = dot * scale;
    local_max = fmaxf(local_max, scores[j]);
  }
  float row_max = block_reduce(local_max, true);
  float local_sum = 0.0f;
  for (std::int64_t j = threadIdx.x; j < N; j += BLOCK) {
    scores[j] = expf(scores[j] - row_max);
    local_sum += scores[j];
  }
  float row_sum = block_reduce(local_sum, false);
  for (std::int64_t d = threadIdx.x; d < D; d += BLOCK) {
    float acc = 0.0f;
    for (std::int64_t j = 0; j < N; ++j) acc += scores[j] * v[((b * N + j) * KH + kv) * D + d];
    out[row * D + d] = acc / row_sum;
  }
}

extern "C" void kernel(const float* __restrict q, const float* __restrict k,
                       const float* __restrict v, float* __restrict out) {
  gqa_kernel<<<B * QH * N, BLOCK>>>(q, k, v, out);
}
