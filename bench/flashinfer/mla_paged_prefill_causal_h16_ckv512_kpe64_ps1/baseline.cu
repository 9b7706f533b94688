// CUDA baseline for mla_paged_prefill_causal_h16_ckv512_kpe64_ps1: one block per (query token,
// query head). The block finds its token's sequence in qo_indptr; query i of a sequence with q_len
// queries and kv_len tokens sits at position kv_len - q_len + i and sees tokens
// [0, kv_len - q_len + i] (the causal mask), token j being row kv_indices[kv_start + j] of the
// caches (page_size is 1). Each seen token gives a logit (q_nope·ckv + q_pe·kpe) · sm_scale; the
// compressed cache row ckv is both key and value. Tokens are taken TILE at a time: each warp
// computes the logits of its tokens (warp shuffles), then every thread folds the tile into a
// running softmax (max, sum of exp, and its head_dim_ckv / BLOCK dimensions of the weighted sum of
// ckv rows, rescaled when the max grows), all in float. lse = (max + log sum) / log 2; the output
// row is rounded to bfloat16 once. A sequence without tokens keeps the reference's zeros and -inf;
// a query that sees no token gets what the reference's softmax over logits all -inf gives, NaN,
// and lse -inf. Not optimized: no tensor cores, no reuse of a cache row across queries or heads.
#include "accelopt_task.h"

static_assert(page_size == 1, "a page is one token");

constexpr int BLOCK = 128;  // knob: 64 128 256 512
constexpr int TILE = 32;    // knob: 16 32 64
static_assert(BLOCK % 32 == 0 && head_dim_ckv % BLOCK == 0);
constexpr int kWarps = BLOCK / 32;
constexpr int kDims = head_dim_ckv / BLOCK;  // output dimensions per thread
constexpr float kLn2 = 0.693147180559945309f;

__global__ void mla_prefill_kernel(
    const __nv_bfloat16* __restrict q_nope, const __nv_bfloat16* __restrict q_pe,
    const __nv_bfloat16* __restrict ckv_cache, const __nv_bfloat16* __restrict kpe_cache,
    const int32_t* __restrict qo_indptr, const int32_t* __restrict kv_indptr,
    const int32_t* __restrict kv_indices, const float* __restrict sm_scale,
    __nv_bfloat16* __restrict output, float* __restrict lse) {
  __shared__ float nope_row[head_dim_ckv];
  __shared__ float pe_row[head_dim_kpe];
  __shared__ float logits[TILE];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t token = blockIdx.x, h = blockIdx.y;
  const std::int64_t row = token * num_qo_heads + h;
  // The token's sequence: where its tokens start, how many it has, how many the query sees.
  std::int64_t start = 0, kv_len = 0, count = 0;
  for (std::int64_t b = 0; b + 1 < len_indptr; ++b) {
    const std::int64_t q_start = qo_indptr[b], q_end = qo_indptr[b + 1];
    if (token < q_start || token >= q_end) continue;
    start = kv_indptr[b];
    kv_len = kv_indptr[b + 1] - start;
    const std::int64_t seen = kv_len - (q_end - q_start) + (token - q_start) + 1;
    count = seen < kv_len ? seen : kv_len;
    break;
  }
  if (kv_len <= 0 || count <= 0) {  // the whole block takes this branch
    const float fill = kv_len <= 0 ? 0.0f : NAN;
    for (int i = 0; i < kDims; ++i) {
      output[row * head_dim_ckv + threadIdx.x + i * BLOCK] = accelopt::to_bf16(fill);
    }
    if (threadIdx.x == 0) lse[row] = -INFINITY;
    return;
  }
  for (int e = threadIdx.x; e < head_dim_ckv; e += BLOCK) {
    nope_row[e] = accelopt::to_float(q_nope[row * head_dim_ckv + e]);
  }
  for (int e = threadIdx.x; e < head_dim_kpe; e += BLOCK) {
    pe_row[e] = accelopt::to_float(q_pe[row * head_dim_kpe + e]);
  }
  __syncthreads();
  const float scale = *sm_scale;
  float running_max = -INFINITY, running_sum = 0.0f, acc[kDims] = {};
  for (std::int64_t tile = 0; tile < count; tile += TILE) {
    const int n = static_cast<int>(count - tile < TILE ? count - tile : TILE);
    for (int t = warp; t < n; t += kWarps) {
      const std::int64_t page = kv_indices[start + tile + t];
      const __nv_bfloat16* ckv_row = ckv_cache + page * head_dim_ckv;
      const __nv_bfloat16* kpe_row = kpe_cache + page * head_dim_kpe;
      float partial = 0.0f;
      for (int e = lane; e < head_dim_ckv; e += 32) {
        partial += nope_row[e] * accelopt::to_float(ckv_row[e]);
      }
      for (int e = lane; e < head_dim_kpe; e += 32) {
        partial += pe_row[e] * accelopt::to_float(kpe_row[e]);
      }
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
    for (int i = 0; i < kDims; ++i) acc[i] *= correction;
    for (int t = 0; t < n; ++t) {
      const float p = expf(logits[t] - tile_max);
      const __nv_bfloat16* ckv_row = ckv_cache + kv_indices[start + tile + t] * head_dim_ckv;
      running_sum += p;
      for (int i = 0; i < kDims; ++i) {
        acc[i] += p * accelopt::to_float(ckv_row[threadIdx.x + i * BLOCK]);
      }
    }
    running_max = tile_max;
    __syncthreads();  // logits is rewritten by the next tile
  }
  for (int i = 0; i < kDims; ++i) {
    output[row * head_dim_ckv + threadIdx.x + i * BLOCK] = accelopt::to_bf16(acc[i] / running_sum);
  }
  if (threadIdx.x == 0) lse[row] = (running_max + logf(running_sum)) / kLn2;
}

extern "C" void kernel(const __nv_bfloat16* __restrict q_nope, const __nv_bfloat16* __restrict q_pe,
                       const __nv_bfloat16* __restrict ckv_cache,
                       const __nv_bfloat16* __restrict kpe_cache,
                       const int32_t* __restrict qo_indptr, const int32_t* __restrict kv_indptr,
                       const int32_t* __restrict kv_indices, const float* __restrict sm_scale,
                       __nv_bfloat16* __restrict output, float* __restrict lse) {
  if (total_q <= 0) return;
  dim3 grid(static_cast<unsigned>(total_q), static_cast<unsigned>(num_qo_heads));
  mla_prefill_kernel<<<grid, BLOCK>>>(q_nope, q_pe, ckv_cache, kpe_cache, qo_indptr, kv_indptr,
                                      kv_indices, sm_scale, output, lse);
}
