// Baseline for mla_paged_prefill_causal_h16_ckv512_kpe64_ps1: reference.py's loops in float32, one
// (query token, query head) at a time. Query i of a sequence with q_len queries and kv_len tokens
// sits at position kv_len - q_len + i and sees tokens [0, kv_len - q_len + i] (the causal mask);
// token j is row kv_indices[kv_start + j] of the caches (page_size is 1). Each row's logits
// (q_nope·ckv + q_pe·kpe) · sm_scale give lse (their log-sum-exp in base 2) and the softmax weights
// of the ckv rows (the compressed cache is both key and value); the output row is rounded to
// bfloat16 once. Rows the reference leaves alone (a sequence without queries or tokens) keep its
// zeros and -inf; a query that sees no token gets what the reference's softmax over logits all
// -inf gives, NaN, and lse -inf. The dot products keep LANES partial sums so that they vectorize.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "accelopt_task.h"

static_assert(page_size == 1, "a page is one token");

constexpr int LANES = 16;
static_assert(head_dim_ckv % LANES == 0 && head_dim_kpe % LANES == 0);

static float dot(const float* __restrict a, const accelopt::bf16* __restrict b, std::int64_t n) {
  float partial[LANES] = {};
  for (std::int64_t d = 0; d < n; d += LANES) {
    for (int lane = 0; lane < LANES; ++lane) partial[lane] += a[d + lane] * float(b[d + lane]);
  }
  float sum = 0.0f;
  for (int lane = 0; lane < LANES; ++lane) sum += partial[lane];
  return sum;
}

// One query head's row over the cache rows `tokens[0, count)`, count >= 1: writes its output row
// and its lse. `weights` holds count floats.
static void attend(const accelopt::bf16* __restrict nope_head,
                   const accelopt::bf16* __restrict pe_head,
                   const accelopt::bf16* __restrict ckv_cache,
                   const accelopt::bf16* __restrict kpe_cache, const int32_t* __restrict tokens,
                   std::int64_t count, float scale, float* __restrict weights,
                   accelopt::bf16* __restrict out, float* __restrict lse) {
  float nope_row[head_dim_ckv], pe_row[head_dim_kpe], out_row[head_dim_ckv];
  for (std::int64_t d = 0; d < head_dim_ckv; ++d) nope_row[d] = nope_head[d];
  for (std::int64_t d = 0; d < head_dim_kpe; ++d) pe_row[d] = pe_head[d];
  float max_logit = -std::numeric_limits<float>::infinity();
  for (std::int64_t j = 0; j < count; ++j) {
    const float logit = dot(nope_row, ckv_cache + tokens[j] * head_dim_ckv, head_dim_ckv) +
                        dot(pe_row, kpe_cache + tokens[j] * head_dim_kpe, head_dim_kpe);
    weights[j] = logit * scale;
    max_logit = std::max(max_logit, weights[j]);
  }
  float sum = 0.0f;
  for (std::int64_t j = 0; j < count; ++j) {
    weights[j] = std::exp(weights[j] - max_logit);
    sum += weights[j];
  }
  *lse = (max_logit + std::log(sum)) / std::log(2.0f);
  for (std::int64_t d = 0; d < head_dim_ckv; ++d) out_row[d] = 0.0f;
  for (std::int64_t j = 0; j < count; ++j) {
    const float weight = weights[j] / sum;
    const accelopt::bf16* __restrict ckv_row = ckv_cache + tokens[j] * head_dim_ckv;
    for (std::int64_t d = 0; d < head_dim_ckv; ++d) out_row[d] += weight * float(ckv_row[d]);
  }
  for (std::int64_t d = 0; d < head_dim_ckv; ++d) out[d] = out_row[d];
}

extern "C" void kernel(const accelopt::bf16* __restrict q_nope,
                       const accelopt::bf16* __restrict q_pe,
                       const accelopt::bf16* __restrict ckv_cache,
                       const accelopt::bf16* __restrict kpe_cache,
                       const int32_t* __restrict qo_indptr, const int32_t* __restrict kv_indptr,
                       const int32_t* __restrict kv_indices, const float* __restrict sm_scale,
                       accelopt::bf16* __restrict output, float* __restrict lse) {
  const float scale = *sm_scale;
  for (std::int64_t i = 0; i < total_q * num_qo_heads * head_dim_ckv; ++i) output[i] = 0.0f;
  for (std::int64_t i = 0; i < total_q * num_qo_heads; ++i) {
    lse[i] = -std::numeric_limits<float>::infinity();
  }
  std::vector<float> weights(num_kv_indices);
  for (std::int64_t b = 0; b < len_indptr - 1; ++b) {
    const std::int64_t q_start = qo_indptr[b], q_len = qo_indptr[b + 1] - q_start;
    const std::int64_t kv_start = kv_indptr[b], kv_len = kv_indptr[b + 1] - kv_start;
    if (q_len <= 0 || kv_len <= 0) continue;
    for (std::int64_t i = 0; i < q_len; ++i) {
      const std::int64_t count = std::min(kv_len - q_len + i + 1, kv_len);
      for (std::int64_t h = 0; h < num_qo_heads; ++h) {
        const std::int64_t row = (q_start + i) * num_qo_heads + h;
        if (count <= 0) {
          for (std::int64_t d = 0; d < head_dim_ckv; ++d) {
            output[row * head_dim_ckv + d] = std::numeric_limits<float>::quiet_NaN();
          }
          continue;
        }
        attend(q_nope + row * head_dim_ckv, q_pe + row * head_dim_kpe, ckv_cache, kpe_cache,
               kv_indices + kv_start, count, scale, weights.data(), output + row * head_dim_ckv,
               lse + row);
      }
    }
  }
}
