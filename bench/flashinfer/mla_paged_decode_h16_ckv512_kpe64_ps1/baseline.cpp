// accelopt:baseline-stub
// The baseline of mla_paged_decode_h16_ckv512_kpe64_ps1, written by accelopt task import: it compiles, and it is NOT correct.
// Write here the straightforward loops of reference.py (the user's or an agent's job) and
// remove the marker line above; until then the task has no baseline (`optimize` with a
// model starts from a naive kernel the executor writes).
#include <cstdint>

#include "accelopt_task.h"

extern "C" void kernel(const accelopt::bf16* __restrict q_nope, const accelopt::bf16* __restrict q_pe, const accelopt::bf16* __restrict ckv_cache, const accelopt::bf16* __restrict kpe_cache, const int32_t* __restrict kv_indptr, const int32_t* __restrict kv_indices, const float* __restrict sm_scale, accelopt::bf16* __restrict output, float* __restrict lse) {
  for (std::int64_t i = 0; i < batch_size * num_qo_heads * head_dim_ckv; ++i) output[i] = 0;
  for (std::int64_t i = 0; i < batch_size * num_qo_heads; ++i) lse[i] = 0;
}
