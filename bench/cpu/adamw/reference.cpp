// Reference for adamw: one AdamW step (PyTorch defaults at step 1, bias corrections folded in).
#include <cmath>
#include <cstdint>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict param, const float* __restrict grad,
                       const float* __restrict exp_avg, const float* __restrict exp_avg_sq,
                       float* __restrict out) {
  for (std::int64_t i = 0; i < M * N; ++i) {
    double theta = param[i], g = grad[i], m = exp_avg[i], v = exp_avg_sq[i];
    double decayed = theta * (1.0 - 1e-5);
    double m_new = 0.9 * m + 0.1 * g;
    double v_new = 0.999 * v + 0.001 * g * g;
    out[i] = static_cast<float>(decayed - 0.01 * m_new / (std::sqrt(1000.0 * v_new) + 1e-8));
  }
}
