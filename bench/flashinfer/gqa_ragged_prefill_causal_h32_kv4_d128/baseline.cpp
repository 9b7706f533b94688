// accelopt:baseline-stub
// The baseline of gqa_ragged_prefill_causal_h32_kv4_d128, written by accelopt task import: it compiles, and it is NOT correct.
// Write here the straightforward loops of reference.py (the user's or an agent's job) and
// remove the marker line above; until then the task has no baseline (`optimize` with a
// model starts from a naive kernel the executor writes).
#include <cstdint>

#include "accelopt_task.h"

extern "C" void kernel(const accelopt::bf16* __restrict q, const accelopt::bf16* __restrict k, const accelopt::bf16* __restrict v, const int32_t* __restrict qo_indptr, const int32_t* __restrict kv_indptr, const float* __restrict sm_scale, accelopt::bf16* __restrict output, float* __restrict lse) {
  for (std::int64_t i = 0; i < total_q * num_qo_heads * head_dim; ++i) output[i] = 0;
  for (std::int64_t i = 0; i < total_q * num_qo_heads; ++i) lse[i] = 0;
}
