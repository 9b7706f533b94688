// Reference for swiglu: out = (silu(x @ w_gate) * (x @ w_up)) @ w_down, silu(t) = t / (1 +
// exp(-t)).
#include <cmath>
#include <cstdint>
#include <vector>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, const float* __restrict w_gate,
                       const float* __restrict w_up, const float* __restrict w_down,
                       float* __restrict out) {
  std::vector<double> gate(N), up(N), row(K);
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t n = 0; n < N; ++n) gate[n] = up[n] = 0.0;
    for (std::int64_t k = 0; k < K; ++k) {
      double xv = x[i * K + k];
      for (std::int64_t n = 0; n < N; ++n) {
        gate[n] += xv * static_cast<double>(w_gate[k * N + n]);
        up[n] += xv * static_cast<double>(w_up[k * N + n]);
      }
    }
    // hidden = silu(gate) * up, kept in gate
    for (std::int64_t n = 0; n < N; ++n) gate[n] = gate[n] / (1.0 + std::exp(-gate[n])) * up[n];
    for (std::int64_t k = 0; k < K; ++k) row[k] = 0.0;
    for (std::int64_t n = 0; n < N; ++n) {
      for (std::int64_t k = 0; k < K; ++k)
        row[k] += gate[n] * static_cast<double>(w_down[n * K + k]);
    }
    for (std::int64_t k = 0; k < K; ++k) out[i * K + k] = static_cast<float>(row[k]);
  }
}
