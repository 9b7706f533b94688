// Baseline for mla_paged_decode_h16_ckv512_kpe64_ps1: reference.py's loops in float32, one
// (sequence, query head) at a time. Each of the sequence's tokens (kv_indices[j]: page_size is 1,
// so a page is a token) gives a logit (q_nope·ckv + q_pe·kpe) · sm_scale; lse is their log-sum-exp
// in base 2; the softmax weights then sum the ckv rows (the compressed cache is both key and
// value), and the output row is rounded to bfloat16 once. A sequence with no tokens gets zeros and
// lse -inf, as in the reference. The dot products keep LANES partial sums so that they vectorize.
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

extern "C" void kernel(const accelopt::bf16* __restrict q_nope,
                       const accelopt::bf16* __restrict q_pe,
                       const accelopt::bf16* __restrict ckv_cache,
                       const accelopt::bf16* __restrict kpe_cache,
                       const int32_t* __restrict kv_indptr, const int32_t* __restrict kv_indices,
                       const float* __restrict sm_scale, accelopt::bf16* __restrict output,
                       float* __restrict lse) {
  const float scale = *sm_scale;
  const float ln2 = std::log(2.0f);
  std::vector<float> weights(num_kv_indices);
  float nope_row[head_dim_ckv], pe_row[head_dim_kpe], out_row[head_dim_ckv];
  for (std::int64_t b = 0; b < batch_size; ++b) {
    const std::int64_t start = kv_indptr[b], count = kv_indptr[b + 1] - start;
    for (std::int64_t h = 0; h < num_qo_heads; ++h) {
      const std::int64_t row = b * num_qo_heads + h;
      accelopt::bf16* __restrict out = output + row * head_dim_ckv;
      if (count <= 0) {
        for (std::int64_t d = 0; d < head_dim_ckv; ++d) out[d] = 0.0f;
        lse[row] = -std::numeric_limits<float>::infinity();
        continue;
      }
      for (std::int64_t d = 0; d < head_dim_ckv; ++d) nope_row[d] = q_nope[row * head_dim_ckv + d];
      for (std::int64_t d = 0; d < head_dim_kpe; ++d) pe_row[d] = q_pe[row * head_dim_kpe + d];
      float max_logit = -std::numeric_limits<float>::infinity();
      for (std::int64_t j = 0; j < count; ++j) {
        const std::int64_t token = kv_indices[start + j];
        const float logit = dot(nope_row, ckv_cache + token * head_dim_ckv, head_dim_ckv) +
                            dot(pe_row, kpe_cache + token * head_dim_kpe, head_dim_kpe);
        weights[j] = logit * scale;
        max_logit = std::max(max_logit, weights[j]);
      }
      float sum = 0.0f;
      for (std::int64_t j = 0; j < count; ++j) {
        weights[j] = std::exp(weights[j] - max_logit);
        sum += weights[j];
      }
      lse[row] = (max_logit + std::log(sum)) / ln2;
      for (std::int64_t d = 0; d < head_dim_ckv; ++d) out_row[d] = 0.0f;
      for (std::int64_t j = 0; j < count; ++j) {
        const float weight = weights[j] / sum;
        const accelopt::bf16* __restrict ckv_row = ckv_cache + kv_indices[start + j] * head_dim_ckv;
        for (std::int64_t d = 0; d < head_dim_ckv; ++d) out_row[d] += weight * float(ckv_row[d]);
      }
      for (std::int64_t d = 0; d < head_dim_ckv; ++d) out[d] = out_row[d];
    }
  }
}
