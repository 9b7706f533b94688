// CUDA baseline for gqa_ragged_prefill_causal_h32_kv4_d128: one block per (query token, query
// head), one thread per output dimension. The block finds its token's sequence in qo_indptr;
// sequence b's keys and values are rows [kv_indptr[b], kv_indptr[b + 1]) of k and v, and query
// q_idx of a sequence with num_q queries and num_kv keys sees its first
// min(q_idx + 1 + num_kv - num_q, num_kv) keys (the causal mask: the queries are the sequence's
// last tokens). The keys are taken TILE at a time: each warp computes logits q·k · sm_scale for its
// keys (warp shuffles), then every thread folds the tile into a running softmax (max, sum of exp,
// and its dimension of the weighted sum of value rows, rescaled when the max grows), all in float.
// lse = (max + log sum) / log 2; the output row is rounded to bfloat16 once. A sequence without
// keys keeps the reference's zeros and -inf; a query that sees no key gets what the reference's
// softmax over logits all -inf gives, NaN, and lse -inf. Not optimized: no tensor cores, no reuse
// of a key across queries or across the heads that share it.
#include "accelopt_task.h"

static_assert(head_dim % 32 == 0 && head_dim <= 1024, "one thread per output dimension");

constexpr int TILE = 32;  // knob: 16 32 64
constexpr int kWarps = head_dim / 32;
constexpr std::int64_t kGroup = num_qo_heads / num_kv_heads;  // query heads per kv head
constexpr float kLn2 = 0.693147180559945309f;

__global__ void prefill_kernel(const __nv_bfloat16* __restrict q, const __nv_bfloat16* __restrict k,
                               const __nv_bfloat16* __restrict v,
                               const int32_t* __restrict qo_indptr,
                               const int32_t* __restrict kv_indptr,
                               const float* __restrict sm_scale, __nv_bfloat16* __restrict output,
                               float* __restrict lse) {
  __shared__ float q_row[head_dim];
  __shared__ float logits[TILE];
  const int d = threadIdx.x, lane = d % 32, warp = d / 32;
  const std::int64_t token = blockIdx.x, h = blockIdx.y;
  const std::int64_t row = token * num_qo_heads + h, kv_head = h / kGroup;
  // The token's sequence: where its keys start, how many it has, how many the token sees.
  std::int64_t kv_start = 0, num_kv = 0, count = 0;
  for (std::int64_t b = 0; b + 1 < len_indptr; ++b) {
    const std::int64_t q_start = qo_indptr[b], q_end = qo_indptr[b + 1];
    if (token < q_start || token >= q_end) continue;
    kv_start = kv_indptr[b];
    num_kv = kv_indptr[b + 1] - kv_start;
    const std::int64_t seen = token - q_start + 1 + num_kv - (q_end - q_start);
    count = seen < num_kv ? seen : num_kv;
    break;
  }
  if (num_kv <= 0 || count <= 0) {  // the whole block takes this branch
    output[row * head_dim + d] = accelopt::to_bf16(num_kv <= 0 ? 0.0f : NAN);
    if (d == 0) lse[row] = -INFINITY;
    return;
  }
  q_row[d] = accelopt::to_float(q[row * head_dim + d]);
  __syncthreads();
  const float scale = *sm_scale;
  float running_max = -INFINITY, running_sum = 0.0f, acc = 0.0f;
  for (std::int64_t tile = 0; tile < count; tile += TILE) {
    const int n = static_cast<int>(count - tile < TILE ? count - tile : TILE);
    for (int t = warp; t < n; t += kWarps) {
      const __nv_bfloat16* k_row = k + ((kv_start + tile + t) * num_kv_heads + kv_head) * head_dim;
      float partial = 0.0f;
      for (int e = lane; e < head_dim; e += 32) partial += q_row[e] * accelopt::to_float(k_row[e]);
      for (int offset = 16; offset > 0; offset /= 2) {
        partial += __shfl_xor_sync(0xffffffffu, partial, offset);
      }
      if (lane == 0) logits[t] = partial * scale;
    }
    __syncthreads();
    float tile_max = running_max;
    for (int t = 0; t < n; ++t) tile_max = fmaxf(tile_max, logits[t]);
    const float correction = expf(running_max - tile_max);  // 0 on the first tile
    running_sum *= correction;
    acc *= correction;
    for (int t = 0; t < n; ++t) {
      const float p = expf(logits[t] - tile_max);
      running_sum += p;
      acc += p *
             accelopt::to_float(v[((kv_start + tile + t) * num_kv_heads + kv_head) * head_dim + d]);
    }
    running_max = tile_max;
    __syncthreads();  // logits is rewritten by the next tile
  }
  output[row * head_dim + d] = accelopt::to_bf16(acc / running_sum);
  if (d == 0) lse[row] = (running_max + logf(running_sum)) / kLn2;
}

extern "C" void kernel(const __nv_bfloat16* __restrict q, const __nv_bfloat16* __restrict k,
                       const __nv_bfloat16* __restrict v, const int32_t* __restrict qo_indptr,
                       const int32_t* __restrict kv_indptr, const float* __restrict sm_scale,
                       __nv_bfloat16* __restrict output, float* __restrict lse) {
  if (total_q <= 0) return;
  dim3 grid(static_cast<unsigned>(total_q), static_cast<unsigned>(num_qo_heads));
  prefill_kernel<<<grid, head_dim>>>(q, k, v, qo_indptr, kv_indptr, sm_scale, output, lse);
}
