// Baseline for mamba (selective scan). b is first transposed to [M, S] so that one step reads its S
// values contiguously. Each channel then walks the sequence TILE_M steps at a time:
//   1. decay = exp(delta * a) and drive = delta * u * b for every (step, state) of the block
//      (loops that vectorize; exp_approx replaces std::exp, which would not);
//   2. the scan itself, sequential in the steps, vectorized across the S states; the states of
//      each step are kept, transposed, for
//   3. out = sum_s c * h, accumulated state by state along the block's steps (vectorizes).
// float32 throughout.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

constexpr int TILE_M = 256;  // knob: 32 64 128 256 512 1024

// exp(x) in float32, written so that the compiler vectorizes loops that call it (std::exp is a
// library call that stops vectorization): x = n ln2 + r with |r| <= ln2 / 2, exp(r) by its
// degree-6 Taylor polynomial, 2^n built in the exponent bits. Relative error below 3e-7 on
// [-87, 88]; arguments outside are clamped.
static inline float exp_approx(float x) {
  x = std::min(std::max(x, -87.0f), 88.0f);
  const float n = std::nearbyint(x * 1.44269504f);
  const float r = (x - n * 0.693145751953125f) - n * 1.42860677e-6f;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * std::bit_cast<float>((static_cast<std::int32_t>(n) + 127) << 23);
}

extern "C" void kernel(const float* __restrict delta, const float* __restrict u,
                       const float* __restrict a, const float* __restrict b,
                       const float* __restrict c, float* __restrict out) {
  std::vector<float> b_t(M * S);
  for (std::int64_t s = 0; s < S; ++s) {
    for (std::int64_t m = 0; m < M; ++m) b_t[m * S + s] = b[s * M + m];
  }
  std::vector<float> decay(TILE_M * S), drive(TILE_M * S), states(S * TILE_M);
  for (std::int64_t ch = 0; ch < C; ++ch) {
    const float* __restrict a_row = a + ch * S;
    float h[S] = {};
    for (std::int64_t m0 = 0; m0 < M; m0 += TILE_M) {
      const std::int64_t steps = std::min<std::int64_t>(TILE_M, M - m0);
      for (std::int64_t t = 0; t < steps; ++t) {
        const float dt = delta[ch * M + m0 + t];
        const float dtu = dt * u[ch * M + m0 + t];
        for (std::int64_t s = 0; s < S; ++s) {
          decay[t * S + s] = exp_approx(dt * a_row[s]);
          drive[t * S + s] = dtu * b_t[(m0 + t) * S + s];
        }
      }
      for (std::int64_t t = 0; t < steps; ++t) {
        for (std::int64_t s = 0; s < S; ++s) {
          h[s] = decay[t * S + s] * h[s] + drive[t * S + s];
          states[s * TILE_M + t] = h[s];
        }
      }
      float* __restrict out_block = out + ch * M + m0;
      for (std::int64_t t = 0; t < steps; ++t) out_block[t] = 0.0f;
      for (std::int64_t s = 0; s < S; ++s) {
        const float* __restrict c_row = c + s * M + m0;
        for (std::int64_t t = 0; t < steps; ++t) out_block[t] += c_row[t] * states[s * TILE_M + t];
      }
    }
  }
}
