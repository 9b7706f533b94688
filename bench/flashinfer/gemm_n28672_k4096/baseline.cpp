// Baseline for gemm_n28672_k4096: C = A @ B^T, float16 storage, float accumulation. Each row of B
// (K halves, 8 KB) is read once and dotted with every row of A while it is in cache: with M small
// the kernel streams B (235 MB) once. The dot product keeps LANES partial sums so that the compiler
// can vectorize it (a single float sum is a chain it may not reorder).
#include <cstdint>

#include "accelopt_task.h"

constexpr int LANES = 16;  // knob: 8 16 32
static_assert(K % LANES == 0, "K is a multiple of LANES");

extern "C" void kernel(const accelopt::fp16* __restrict A, const accelopt::fp16* __restrict B,
                       accelopt::fp16* __restrict C) {
  for (std::int64_t n = 0; n < N; ++n) {
    const accelopt::fp16* b = B + n * K;
    for (std::int64_t m = 0; m < M; ++m) {
      const accelopt::fp16* a = A + m * K;
      float lanes[LANES] = {};
      for (std::int64_t k = 0; k < K; k += LANES) {
        for (int l = 0; l < LANES; ++l) lanes[l] += float(a[k + l]) * float(b[k + l]);
      }
      float sum = 0.0f;
      for (int l = 0; l < LANES; ++l) sum += lanes[l];
      C[m * N + n] = static_cast<accelopt::fp16>(sum);
    }
  }
}
