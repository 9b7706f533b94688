// Baseline for moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048: reference.py's steps
// in float32, on one core.
// 1. Routing, per token, as the reference computes it: s = 1 / (1 + exp(-logit)), s + bias; each
//    group of 32 experts scored by the sum of its two largest; the 4 best groups kept; the 8 best
//    experts of those; their weights s (without bias) / their sum * routed_scaling_factor.
// 2. For each local expert some token routes to: the routed tokens' activations dequantized (float8
//    value * its 128-block's scale), then GEMM1 (gate/up, 2I rows of W13), C = silu(X2) * X1 with
//    X1 = G1[:, :I] and X2 = G1[:, I:], GEMM2 (H rows of W2), each output row accumulated in float
//    times the token's weight, in the reference's expert order. The output is rounded to bfloat16
//    once at the end.
// Each weight row is dequantized once (a 256-entry table of the float8 values times the block's
// scale, the product the reference forms) into a float row, then dotted with every routed token's
// row while it is in cache: the weights are read once a call. Dot products keep LANES partial sums
// so that they vectorize. Not optimized beyond that: no blocking over tokens, no threads.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "accelopt_task.h"

constexpr int BLOCK = 128;
constexpr int TOP_K = 8;
constexpr int N_GROUP = 8;
constexpr int TOPK_GROUP = 4;
constexpr int LANES = 16;  // knob: 8 16 32

static_assert(gemm1_out_size == 2 * intermediate_size);
static_assert(num_hidden_blocks * BLOCK == hidden_size);
static_assert(num_intermediate_blocks * BLOCK == intermediate_size);
static_assert(num_gemm1_out_blocks * BLOCK == gemm1_out_size);
static_assert(num_experts % N_GROUP == 0 && num_experts / N_GROUP >= 2);
static_assert(hidden_size % LANES == 0 && intermediate_size % LANES == 0);

static float dot(const float* __restrict a, const float* __restrict b, std::int64_t n) {
  float partial[LANES] = {};
  for (std::int64_t k = 0; k < n; k += LANES) {
    for (int lane = 0; lane < LANES; ++lane) partial[lane] += a[k + lane] * b[k + lane];
  }
  float sum = 0.0f;
  for (int lane = 0; lane < LANES; ++lane) sum += partial[lane];
  return sum;
}

// row[k] = float8 value * scale of k's block, the product the reference's dequantization forms.
static void dequantize_row(const accelopt::fp8_e4m3* __restrict values,
                           const float* __restrict block_scales, std::int64_t n,
                           const float* __restrict table, float* __restrict row) {
  for (std::int64_t b = 0; b < n / BLOCK; ++b) {
    const float scale = block_scales[b];
    for (std::int64_t k = b * BLOCK; k < (b + 1) * BLOCK; ++k)
      row[k] = table[values[k].bits] * scale;
  }
}

// The indices of the `count` largest of values[0..n) (ties: the lower index first).
static void top_indices(const float* values, int n, int count, int* chosen) {
  std::vector<bool> taken(n, false);
  for (int c = 0; c < count; ++c) {
    int best = -1;
    for (int i = 0; i < n; ++i) {
      if (!taken[i] && (best < 0 || values[i] > values[best])) best = i;
    }
    taken[best] = true;
    chosen[c] = best;
  }
}

// Routing of token t: its TOP_K global experts and their weights.
static void route(const float* __restrict logits, const accelopt::bf16* __restrict bias,
                  float scaling, int* experts, float* weights) {
  constexpr int group_size = num_experts / N_GROUP;
  float s[num_experts], with_bias[num_experts];
  for (int e = 0; e < num_experts; ++e) {
    s[e] = 1.0f / (1.0f + std::exp(-logits[e]));
    with_bias[e] = s[e] + float(bias[e]);
  }
  float group_scores[N_GROUP];
  for (int g = 0; g < N_GROUP; ++g) {
    int top2[2];
    top_indices(with_bias + g * group_size, group_size, 2, top2);
    group_scores[g] = with_bias[g * group_size + top2[0]] + with_bias[g * group_size + top2[1]];
  }
  int groups[TOPK_GROUP];
  top_indices(group_scores, N_GROUP, TOPK_GROUP, groups);
  float pruned[num_experts];
  std::fill(pruned, pruned + num_experts, std::numeric_limits<float>::lowest());
  for (int g : groups) {
    for (int e = g * group_size; e < (g + 1) * group_size; ++e) pruned[e] = with_bias[e];
  }
  top_indices(pruned, num_experts, TOP_K, experts);
  std::sort(experts, experts + TOP_K);  // the reference sums the weights in expert order
  float sum = 0.0f;
  for (int k = 0; k < TOP_K; ++k) sum += s[experts[k]];
  sum += 1e-20f;
  for (int k = 0; k < TOP_K; ++k) weights[k] = s[experts[k]] / sum * scaling;
}

extern "C" void kernel(
    const float* __restrict routing_logits, const accelopt::bf16* __restrict routing_bias,
    const accelopt::fp8_e4m3* __restrict hidden_states, const float* __restrict hidden_states_scale,
    const accelopt::fp8_e4m3* __restrict gemm1_weights, const float* __restrict gemm1_weights_scale,
    const accelopt::fp8_e4m3* __restrict gemm2_weights, const float* __restrict gemm2_weights_scale,
    const std::int32_t* __restrict local_expert_offset,
    const float* __restrict routed_scaling_factor, accelopt::bf16* __restrict output) {
  constexpr std::int64_t H = hidden_size, I = intermediate_size;
  float table[256];
  for (int bits = 0; bits < 256; ++bits)
    table[bits] = accelopt::to_float(accelopt::fp8_e4m3{static_cast<std::uint8_t>(bits)});

  std::vector<int> experts(seq_len * TOP_K);
  std::vector<float> weights(seq_len * TOP_K);
  for (std::int64_t t = 0; t < seq_len; ++t) {
    route(routing_logits + t * num_experts, routing_bias, *routed_scaling_factor,
          &experts[t * TOP_K], &weights[t * TOP_K]);
  }

  std::vector<float> accumulated(seq_len * H, 0.0f);
  std::vector<std::int64_t> tokens;
  std::vector<float> token_weights, activations, gate_up, swiglu;
  std::vector<float> row(std::max(H, I));
  float block_scales[num_hidden_blocks];
  for (std::int64_t local = 0; local < num_local_experts; ++local) {
    const std::int64_t global = *local_expert_offset + local;
    if (global < 0 || global >= num_experts) continue;
    tokens.clear();
    token_weights.clear();
    for (std::int64_t t = 0; t < seq_len; ++t) {
      for (int k = 0; k < TOP_K; ++k) {
        if (experts[t * TOP_K + k] == global) {
          tokens.push_back(t);
          token_weights.push_back(weights[t * TOP_K + k]);
        }
      }
    }
    const std::int64_t routed = static_cast<std::int64_t>(tokens.size());
    if (routed == 0) continue;

    activations.resize(routed * H);
    for (std::int64_t r = 0; r < routed; ++r) {
      for (std::int64_t b = 0; b < num_hidden_blocks; ++b)
        block_scales[b] = hidden_states_scale[b * seq_len + tokens[r]];
      dequantize_row(hidden_states + tokens[r] * H, block_scales, H, table, &activations[r * H]);
    }

    // GEMM1: gate_up[r][j] = activations[r] . W13[j]
    const accelopt::fp8_e4m3* w13 = gemm1_weights + local * gemm1_out_size * H;
    const float* s13 = gemm1_weights_scale + local * num_gemm1_out_blocks * num_hidden_blocks;
    gate_up.resize(routed * gemm1_out_size);
    for (std::int64_t j = 0; j < gemm1_out_size; ++j) {
      dequantize_row(w13 + j * H, s13 + (j / BLOCK) * num_hidden_blocks, H, table, row.data());
      for (std::int64_t r = 0; r < routed; ++r)
        gate_up[r * gemm1_out_size + j] = dot(&activations[r * H], row.data(), H);
    }

    // SwiGLU: silu(X2) * X1, X1 the first I columns, X2 the last I
    swiglu.resize(routed * I);
    for (std::int64_t r = 0; r < routed; ++r) {
      for (std::int64_t i = 0; i < I; ++i) {
        const float x1 = gate_up[r * gemm1_out_size + i];
        const float x2 = gate_up[r * gemm1_out_size + I + i];
        swiglu[r * I + i] = x2 / (1.0f + std::exp(-x2)) * x1;
      }
    }

    // GEMM2: out[r][h] = swiglu[r] . W2[h], accumulated times the token's weight
    const accelopt::fp8_e4m3* w2 = gemm2_weights + local * H * I;
    const float* s2 = gemm2_weights_scale + local * num_hidden_blocks * num_intermediate_blocks;
    for (std::int64_t h = 0; h < H; ++h) {
      dequantize_row(w2 + h * I, s2 + (h / BLOCK) * num_intermediate_blocks, I, table, row.data());
      for (std::int64_t r = 0; r < routed; ++r) {
        accumulated[tokens[r] * H + h] += dot(&swiglu[r * I], row.data(), I) * token_weights[r];
      }
    }
  }

  for (std::int64_t n = 0; n < seq_len * H; ++n) output[n] = accelopt::to_bf16(accumulated[n]);
}
