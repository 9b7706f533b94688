// Reference for mamba (selective scan): for each channel c and state s, along m:
// h = exp(delta[c, m] * a[c, s]) * h + delta[c, m] * b[s, m] * u[c, m] (h = 0 before m = 0);
// out[c, m] = sum_s c[s, m] * h[c, s, m].
#include <cmath>
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict delta, const float* __restrict u,
                       const float* __restrict a, const float* __restrict b,
                       const float* __restrict c, float* __restrict out) {
  std::vector<double> h(S);
  for (std::int64_t ch = 0; ch < C; ++ch) {
    for (std::int64_t s = 0; s < S; ++s) h[s] = 0.0;
    for (std::int64_t m = 0; m < M; ++m) {
      double dt = delta[ch * M + m];
      double acc = 0.0;
      for (std::int64_t s = 0; s < S; ++s) {
        double decay = std::exp(dt * static_cast<double>(a[ch * S + s]));
        double drive = dt * static_cast<double>(b[s * M + m]) * static_cast<double>(u[ch * M + m]);
        h[s] = decay * h[s] + drive;
        acc += static_cast<double>(c[s * M + m]) * h[s];
      }
      out[ch * M + m] = static_cast<float>(acc);
    }
  }
}
