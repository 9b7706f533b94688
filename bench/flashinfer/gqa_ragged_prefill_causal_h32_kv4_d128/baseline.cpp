// Baseline for gqa_ragged_prefill_causal_h32_kv4_d128: reference.py's loops in float32, one (query
// token, query head) at a time. Sequence b's queries are rows [qo_indptr[b], qo_indptr[b + 1]) of q
// and its keys and values rows [kv_indptr[b], kv_indptr[b + 1]) of k and v; query q_idx of a
// sequence with num_q queries and num_kv keys sees its first min(q_idx + 1 + num_kv - num_q,
// num_kv) keys (the causal mask: the queries are the sequence's last tokens). Each row's logits
// q·k · sm_scale give lse (their log-sum-exp in base 2) and the softmax weights of the value rows;
// the output row is rounded to bfloat16 once. Rows the reference leaves alone (a sequence without
// queries or keys) keep its zeros and -inf; a query that sees no key gets what the reference's
// softmax over logits all -inf gives, NaN, and lse -inf. The dot products keep LANES partial sums
// so that they vectorize.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "accelopt_task.h"

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

// One query head's row over key and value rows [0, count) of `keys` and `values` (rows of
// num_kv_heads * head_dim), count >= 1: writes its output row and its lse. `weights` holds count
// floats.
static void attend(const accelopt::bf16* __restrict q_head, const accelopt::bf16* __restrict keys,
                   const accelopt::bf16* __restrict values, std::int64_t count,
                   std::int64_t kv_head, float scale, float* __restrict weights,
                   accelopt::bf16* __restrict out, float* __restrict lse) {
  float q_row[head_dim], out_row[head_dim];
  for (std::int64_t d = 0; d < head_dim; ++d) q_row[d] = q_head[d];
  float max_logit = -std::numeric_limits<float>::infinity();
  for (std::int64_t j = 0; j < count; ++j) {
    weights[j] = dot(q_row, keys + (j * num_kv_heads + kv_head) * head_dim) * scale;
    max_logit = std::max(max_logit, weights[j]);
  }
  float sum = 0.0f;
  for (std::int64_t j = 0; j < count; ++j) {
    weights[j] = std::exp(weights[j] - max_logit);
    sum += weights[j];
  }
  *lse = (max_logit + std::log(sum)) / std::log(2.0f);
  for (std::int64_t d = 0; d < head_dim; ++d) out_row[d] = 0.0f;
  for (std::int64_t j = 0; j < count; ++j) {
    const float weight = weights[j] / sum;
    const accelopt::bf16* __restrict v_row = values + (j * num_kv_heads + kv_head) * head_dim;
    for (std::int64_t d = 0; d < head_dim; ++d) out_row[d] += weight * float(v_row[d]);
  }
  for (std::int64_t d = 0; d < head_dim; ++d) out[d] = out_row[d];
}

extern "C" void kernel(const accelopt::bf16* __restrict q, const accelopt::bf16* __restrict k,
                       const accelopt::bf16* __restrict v, const int32_t* __restrict qo_indptr,
                       const int32_t* __restrict kv_indptr, const float* __restrict sm_scale,
                       accelopt::bf16* __restrict output, float* __restrict lse) {
  constexpr std::int64_t gqa_ratio = num_qo_heads / num_kv_heads;
  const float scale = *sm_scale;
  for (std::int64_t i = 0; i < total_q * num_qo_heads * head_dim; ++i) output[i] = 0.0f;
  for (std::int64_t i = 0; i < total_q * num_qo_heads; ++i) {
    lse[i] = -std::numeric_limits<float>::infinity();
  }
  std::vector<float> weights(total_kv);
  for (std::int64_t b = 0; b < len_indptr - 1; ++b) {
    const std::int64_t q_start = qo_indptr[b], num_q = qo_indptr[b + 1] - q_start;
    const std::int64_t kv_start = kv_indptr[b], num_kv = kv_indptr[b + 1] - kv_start;
    if (num_q <= 0 || num_kv <= 0) continue;
    const accelopt::bf16* keys = k + kv_start * num_kv_heads * head_dim;
    const accelopt::bf16* values = v + kv_start * num_kv_heads * head_dim;
    for (std::int64_t q_idx = 0; q_idx < num_q; ++q_idx) {
      const std::int64_t count = std::min(q_idx + 1 + num_kv - num_q, num_kv);
      for (std::int64_t h = 0; h < num_qo_heads; ++h) {
        const std::int64_t row = (q_start + q_idx) * num_qo_heads + h;
        if (count <= 0) {
          for (std::int64_t d = 0; d < head_dim; ++d) {
            output[row * head_dim + d] = std::numeric_limits<float>::quiet_NaN();
          }
          continue;
        }
        attend(q + row * head_dim, keys, values, count, h / gqa_ratio, scale, weights.data(),
               output + row * head_dim, lse + row);
      }
    }
  }
}
