// Baseline for gqa_paged_decode_h32_kv4_d128_ps1: reference.py's loops in float32, one (sequence,
// query head) at a time. The query row is converted to float once; each of the sequence's keys
// (token kv_indices[j]: page_size is 1, so a page is a token) gives a logit q·k · sm_scale; lse is
// their log-sum-exp in base 2; the softmax weights then sum the value rows, and the output row is
// rounded to bfloat16 once. A sequence with no keys gets zeros and lse -inf, as in the reference.
// The dot products keep LANES partial sums so that they vectorize.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "accelopt_task.h"

static_assert(page_size == 1, "a page is one token");

constexpr int LANES = 16;
static_assert(head_dim % LANES == 0);

static float dot(const float* __restrict q_row, const accelopt::bf16* __restrict k_row) {
  float partial[LANES] = {};
  for (std::int64_t d = 0; d < head_dim; d += LANES) {
    for (int lane = 0; lane < LANES; ++lane)
      partial[lane] += q_row[d + lane] * float(k_row[d + lane]);
  }
  float sum = 0.0f;
  for (int lane = 0; lane < LANES; ++lane) sum += partial[lane];
  return sum;
}

extern "C" void kernel(const accelopt::bf16* __restrict q, const accelopt::bf16* __restrict k_cache,
                       const accelopt::bf16* __restrict v_cache,
                       const int32_t* __restrict kv_indptr, const int32_t* __restrict kv_indices,
                       const float* __restrict sm_scale, accelopt::bf16* __restrict output,
                       float* __restrict lse) {
  constexpr std::int64_t gqa_ratio = num_qo_heads / num_kv_heads;
  const float scale = *sm_scale;
  const float ln2 = std::log(2.0f);
  std::vector<float> weights(num_kv_indices);
  float q_row[head_dim], out_row[head_dim];
  for (std::int64_t b = 0; b < batch_size; ++b) {
    const std::int64_t start = kv_indptr[b], count = kv_indptr[b + 1] - start;
    for (std::int64_t h = 0; h < num_qo_heads; ++h) {
      const std::int64_t row = b * num_qo_heads + h;
      accelopt::bf16* __restrict out = output + row * head_dim;
      if (count <= 0) {
        for (std::int64_t d = 0; d < head_dim; ++d) out[d] = 0.0f;
        lse[row] = -std::numeric_limits<float>::infinity();
        continue;
      }
      const std::int64_t kv_head = h / gqa_ratio;
      for (std::int64_t d = 0; d < head_dim; ++d) q_row[d] = q[row * head_dim + d];
      float max_logit = -std::numeric_limits<float>::infinity();
      for (std::int64_t j = 0; j < count; ++j) {
        const std::int64_t token = kv_indices[start + j];
        weights[j] = dot(q_row, k_cache + (token * num_kv_heads + kv_head) * head_dim) * scale;
        max_logit = std::max(max_logit, weights[j]);
      }
      float sum = 0.0f;
      for (std::int64_t j = 0; j < count; ++j) {
        weights[j] = std::exp(weights[j] - max_logit);
        sum += weights[j];
      }
      lse[row] = (max_logit + std::log(sum)) / ln2;
      for (std::int64_t d = 0; d < head_dim; ++d) out_row[d] = 0.0f;
      for (std::int64_t j = 0; j < count; ++j) {
        const float weight = weights[j] / sum;
        const std::int64_t token = kv_indices[start + j];
        const accelopt::bf16* __restrict v_row =
            v_cache + (token * num_kv_heads + kv_head) * head_dim;
        for (std::int64_t d = 0; d < head_dim; ++d) out_row[d] += weight * float(v_row[d]);
      }
      for (std::int64_t d = 0; d < head_dim; ++d) out[d] = out_row[d];
    }
  }
}
