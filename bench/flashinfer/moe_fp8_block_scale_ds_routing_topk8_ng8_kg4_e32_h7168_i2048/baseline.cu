// CUDA baseline for moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048: reference.py's
// steps in float32, as baseline.cpp computes them, in six kernels on the default stream.
// 1. route_kernel, one thread per token: s = 1 / (1 + exp(-logit)), s + bias; each group of
//    experts scored by the sum of its two largest; the 4 best groups kept; the 8 best experts of
//    those; their weights s (without bias) / their sum * routed_scaling_factor.
// 2. gather_kernel, one block per local expert: the (token, choice) pairs routed to it, in token
//    order (a block-wide prefix sum per chunk of tokens).
// 3. gate_up_kernel, per (expert, tile of its tokens, tile of I): GEMM1's gate row j and up row
//    I + j of W13 against the tokens' activations, each element dequantized as the reference does
//    (float8 value * its 128-block's scale), then C = silu(X2) * X1 into a float row per pair.
// 4. down_kernel, per (expert, tile of its tokens, tile of H): GEMM2 of C against W2, times the
//    pair's weight, added into a float accumulator per (token, h) with atomicAdd (at most 8 adds,
//    one per routed expert, in any order).
// 5. The accumulator rounded to bfloat16 once (and cleared first, by clear_kernel).
// The GEMMs are the classic shared-memory tiling (gemm_n28672_k4096's baseline): a TILE x TILE
// block of threads, one output each, steps along K a TILE-wide slice at a time, so each weight
// element is read once per tile of TILE tokens. No tensor cores, no float8 instructions.
#include "accelopt_task.h"

constexpr int BLOCK = 128;  // the float8 scales' block, along both dimensions
constexpr int TOP_K = 8;
constexpr int N_GROUP = 8;
constexpr int TOPK_GROUP = 4;
constexpr int TILE = 16;  // knob: 8 16 32
constexpr int ROUTE_THREADS = 128;
constexpr int GATHER_THREADS = 256;  // a power of two: the prefix sum's doubling steps
constexpr int ELEMENTWISE_THREADS = 256;
// Blocks per expert along its tokens, each looping over every MAX_TOKEN_TILE_SLOTS-th tile of them.
constexpr int MAX_TOKEN_TILE_SLOTS = 8;

static_assert(gemm1_out_size == 2 * intermediate_size);
static_assert(num_hidden_blocks * BLOCK == hidden_size);
static_assert(num_intermediate_blocks * BLOCK == intermediate_size);
static_assert(num_gemm1_out_blocks * BLOCK == gemm1_out_size);
static_assert(num_experts % N_GROUP == 0 && num_experts / N_GROUP >= 2);
static_assert(TOPK_GROUP * (num_experts / N_GROUP) >= TOP_K);
static_assert(BLOCK % TILE == 0, "a tile lies within one scale block");

constexpr std::int64_t kTokens = seq_len > 0 ? seq_len : 1;  // device arrays need a size
constexpr std::int64_t kTokenTiles = (seq_len + TILE - 1) / TILE;
constexpr unsigned kTokenTileSlots =
    static_cast<unsigned>(kTokenTiles < MAX_TOKEN_TILE_SLOTS ? kTokenTiles : MAX_TOKEN_TILE_SLOTS);

__device__ int routed_experts[kTokens * TOP_K];    // [token][choice], global experts, ascending
__device__ float routed_weights[kTokens * TOP_K];  // [token][choice]
// [local expert][n]: the pairs routed to it, token * TOP_K + choice, in token order.
__device__ int expert_pairs[num_local_experts * kTokens];
__device__ int expert_pair_count[num_local_experts];
__device__ float swiglu[kTokens * TOP_K * intermediate_size];  // [pair][i]: C of that pair
__device__ float accumulated[kTokens * hidden_size];           // [token][h]

// The indices of the `count` largest of values[0..n) (ties: the lower index first).
__device__ void top_indices(const float* values, int n, int count, int* chosen) {
  for (int c = 0; c < count; ++c) {
    int best = -1;
    for (int i = 0; i < n; ++i) {
      bool taken = false;
      for (int p = 0; p < c; ++p) taken = taken || chosen[p] == i;
      if (!taken && (best < 0 || values[i] > values[best])) best = i;
    }
    chosen[c] = best;
  }
}

__global__ void route_kernel(const float* __restrict routing_logits,
                             const __nv_bfloat16* __restrict routing_bias,
                             const float* __restrict routed_scaling_factor) {
  constexpr int group_size = num_experts / N_GROUP;
  const std::int64_t token = static_cast<std::int64_t>(blockIdx.x) * ROUTE_THREADS + threadIdx.x;
  if (token >= seq_len) return;
  const float* logits = routing_logits + token * num_experts;
  float with_bias[num_experts];
  for (int e = 0; e < num_experts; ++e) {
    with_bias[e] = 1.0f / (1.0f + expf(-logits[e])) + accelopt::to_float(routing_bias[e]);
  }
  float group_scores[N_GROUP];
  for (int g = 0; g < N_GROUP; ++g) {
    int top2[2];
    top_indices(with_bias + g * group_size, group_size, 2, top2);
    group_scores[g] = with_bias[g * group_size + top2[0]] + with_bias[g * group_size + top2[1]];
  }
  int groups[TOPK_GROUP];
  top_indices(group_scores, N_GROUP, TOPK_GROUP, groups);
  float kept[TOPK_GROUP * group_size];  // the kept groups' scores, group after group
  for (int g = 0; g < TOPK_GROUP; ++g) {
    for (int e = 0; e < group_size; ++e)
      kept[g * group_size + e] = with_bias[groups[g] * group_size + e];
  }
  int chosen[TOP_K];
  top_indices(kept, TOPK_GROUP * group_size, TOP_K, chosen);
  int experts[TOP_K];
  for (int k = 0; k < TOP_K; ++k) {
    experts[k] = groups[chosen[k] / group_size] * group_size + chosen[k] % group_size;
  }
  for (int k = 1; k < TOP_K; ++k) {  // ascending: the reference sums the weights in expert order
    for (int j = k; j > 0 && experts[j - 1] > experts[j]; --j) {
      const int swap = experts[j];
      experts[j] = experts[j - 1];
      experts[j - 1] = swap;
    }
  }
  float s[TOP_K], sum = 0.0f;
  for (int k = 0; k < TOP_K; ++k) {
    s[k] = 1.0f / (1.0f + expf(-logits[experts[k]]));
    sum += s[k];
  }
  sum += 1e-20f;
  for (int k = 0; k < TOP_K; ++k) {
    routed_experts[token * TOP_K + k] = experts[k];
    routed_weights[token * TOP_K + k] = s[k] / sum * *routed_scaling_factor;
  }
}

__global__ void gather_kernel(const std::int32_t* __restrict local_expert_offset) {
  __shared__ int prefix[GATHER_THREADS];
  const int local = static_cast<int>(blockIdx.x);
  const int global = *local_expert_offset + local;
  const bool exists = global >= 0 && global < num_experts;
  int found = 0;
  for (std::int64_t base = 0; base < seq_len; base += GATHER_THREADS) {
    const std::int64_t token = base + threadIdx.x;
    int pair = -1;
    for (int k = 0; exists && token < seq_len && k < TOP_K; ++k) {
      if (routed_experts[token * TOP_K + k] == global) pair = static_cast<int>(token * TOP_K + k);
    }
    prefix[threadIdx.x] = pair >= 0 ? 1 : 0;
    __syncthreads();
    for (int offset = 1; offset < GATHER_THREADS; offset *= 2) {
      const int add = static_cast<int>(threadIdx.x) >= offset ? prefix[threadIdx.x - offset] : 0;
      __syncthreads();
      prefix[threadIdx.x] += add;
      __syncthreads();
    }
    if (pair >= 0) expert_pairs[local * kTokens + found + prefix[threadIdx.x] - 1] = pair;
    found += prefix[GATHER_THREADS - 1];
    __syncthreads();  // every thread has read the sums before the next chunk overwrites them
  }
  if (threadIdx.x == 0) expert_pair_count[local] = found;
}

// The pair that row `row` of local expert `local`'s token list holds, or -1 past its end.
__device__ int pair_of(int local, std::int64_t row) {
  return row < expert_pair_count[local] ? expert_pairs[local * kTokens + row] : -1;
}

__global__ void gate_up_kernel(const __nv_fp8_e4m3* __restrict hidden_states,
                               const float* __restrict hidden_states_scale,
                               const __nv_fp8_e4m3* __restrict gemm1_weights,
                               const float* __restrict gemm1_weights_scale) {
  __shared__ float a_tile[TILE][TILE + 1];     // [token][k], padded against bank conflicts
  __shared__ float gate_tile[TILE][TILE + 1];  // [row of X1][k]
  __shared__ float up_tile[TILE][TILE + 1];    // [row of X2][k]
  const int local = static_cast<int>(blockIdx.z);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.x) * TILE;  // of X1; X2's is I + it
  const __nv_fp8_e4m3* w13 = gemm1_weights + local * gemm1_out_size * hidden_size;
  const float* s13 = gemm1_weights_scale + local * num_gemm1_out_blocks * num_hidden_blocks;
  const float* gate_scales = s13 + ((row0 + ty) / BLOCK) * num_hidden_blocks;
  const float* up_scales = s13 + ((intermediate_size + row0 + ty) / BLOCK) * num_hidden_blocks;
  const std::int64_t count = expert_pair_count[local];
  for (std::int64_t tile = blockIdx.y; tile * TILE < count; tile += gridDim.y) {
    const int load_pair = pair_of(local, tile * TILE + ty);  // the token row this thread loads
    const std::int64_t load_token = load_pair / TOP_K;
    float x1 = 0.0f, x2 = 0.0f;
    for (std::int64_t k0 = 0; k0 < hidden_size; k0 += TILE) {
      const std::int64_t k = k0 + tx, k_block = k0 / BLOCK;
      a_tile[ty][tx] = load_pair < 0
                           ? 0.0f
                           : accelopt::to_float(hidden_states[load_token * hidden_size + k]) *
                                 hidden_states_scale[k_block * seq_len + load_token];
      gate_tile[ty][tx] =
          accelopt::to_float(w13[(row0 + ty) * hidden_size + k]) * gate_scales[k_block];
      up_tile[ty][tx] = accelopt::to_float(w13[(intermediate_size + row0 + ty) * hidden_size + k]) *
                        up_scales[k_block];
      __syncthreads();
      for (int kk = 0; kk < TILE; ++kk) {
        x1 += a_tile[ty][kk] * gate_tile[tx][kk];
        x2 += a_tile[ty][kk] * up_tile[tx][kk];
      }
      __syncthreads();
    }
    if (load_pair >= 0) {
      swiglu[static_cast<std::int64_t>(load_pair) * intermediate_size + row0 + tx] =
          x2 / (1.0f + expf(-x2)) * x1;
    }
  }
}

__global__ void down_kernel(const __nv_fp8_e4m3* __restrict gemm2_weights,
                            const float* __restrict gemm2_weights_scale) {
  __shared__ float c_tile[TILE][TILE + 1];  // [token][i]
  __shared__ float w_tile[TILE][TILE + 1];  // [row of W2][i]
  const int local = static_cast<int>(blockIdx.z);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t h0 = static_cast<std::int64_t>(blockIdx.x) * TILE;
  const __nv_fp8_e4m3* w2 = gemm2_weights + local * hidden_size * intermediate_size;
  const float* row_scales = gemm2_weights_scale +
                            local * num_hidden_blocks * num_intermediate_blocks +
                            ((h0 + ty) / BLOCK) * num_intermediate_blocks;
  const std::int64_t count = expert_pair_count[local];
  for (std::int64_t tile = blockIdx.y; tile * TILE < count; tile += gridDim.y) {
    const int load_pair = pair_of(local, tile * TILE + ty);
    float sum = 0.0f;
    for (std::int64_t i0 = 0; i0 < intermediate_size; i0 += TILE) {
      c_tile[ty][tx] =
          load_pair < 0
              ? 0.0f
              : swiglu[static_cast<std::int64_t>(load_pair) * intermediate_size + i0 + tx];
      w_tile[ty][tx] =
          accelopt::to_float(w2[(h0 + ty) * intermediate_size + i0 + tx]) * row_scales[i0 / BLOCK];
      __syncthreads();
      for (int kk = 0; kk < TILE; ++kk) sum += c_tile[ty][kk] * w_tile[tx][kk];
      __syncthreads();
    }
    if (load_pair >= 0) {
      atomicAdd(&accumulated[(load_pair / TOP_K) * hidden_size + h0 + tx],
                sum * routed_weights[load_pair]);
    }
  }
}

__global__ void clear_kernel() {
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * ELEMENTWISE_THREADS + threadIdx.x;
  if (n < seq_len * hidden_size) accumulated[n] = 0.0f;
}

__global__ void to_bf16_kernel(__nv_bfloat16* __restrict output) {
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * ELEMENTWISE_THREADS + threadIdx.x;
  if (n < seq_len * hidden_size) output[n] = accelopt::to_bf16(accumulated[n]);
}

extern "C" void kernel(
    const float* __restrict routing_logits, const __nv_bfloat16* __restrict routing_bias,
    const __nv_fp8_e4m3* __restrict hidden_states, const float* __restrict hidden_states_scale,
    const __nv_fp8_e4m3* __restrict gemm1_weights, const float* __restrict gemm1_weights_scale,
    const __nv_fp8_e4m3* __restrict gemm2_weights, const float* __restrict gemm2_weights_scale,
    const std::int32_t* __restrict local_expert_offset,
    const float* __restrict routed_scaling_factor, __nv_bfloat16* __restrict output) {
  if (seq_len <= 0) return;
  const unsigned elementwise_blocks = static_cast<unsigned>(
      (seq_len * hidden_size + ELEMENTWISE_THREADS - 1) / ELEMENTWISE_THREADS);
  const unsigned route_blocks =
      static_cast<unsigned>((seq_len + ROUTE_THREADS - 1) / ROUTE_THREADS);
  const dim3 tile_block(TILE, TILE);
  const unsigned experts = static_cast<unsigned>(num_local_experts);
  clear_kernel<<<elementwise_blocks, ELEMENTWISE_THREADS>>>();
  route_kernel<<<route_blocks, ROUTE_THREADS>>>(routing_logits, routing_bias,
                                                routed_scaling_factor);
  gather_kernel<<<experts, GATHER_THREADS>>>(local_expert_offset);
  gate_up_kernel<<<dim3(intermediate_size / TILE, kTokenTileSlots, experts), tile_block>>>(
      hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale);
  down_kernel<<<dim3(hidden_size / TILE, kTokenTileSlots, experts), tile_block>>>(
      gemm2_weights, gemm2_weights_scale);
  to_bf16_kernel<<<elementwise_blocks, ELEMENTWISE_THREADS>>>(output);
}
