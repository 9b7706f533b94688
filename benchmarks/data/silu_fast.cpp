// A fast silu for benchmarks/timing_honesty --ab: AVX-512 exp (Cephes' expf polynomial after a
// reduction by ln 2, scaled by 2^n with scalef) and streaming stores. On silu's cpu workload it is
// bound by memory bandwidth, while the baseline (a library exp per element) is bound by
// arithmetic: the pair whose ratio moves with a neighbour's memory traffic.
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "accelopt_task.h"

#ifdef __AVX512F__
static inline __m512 exp_ps(__m512 y) {
  y = _mm512_min_ps(_mm512_max_ps(y, _mm512_set1_ps(-87.5f)), _mm512_set1_ps(88.8f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(y, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), y);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}
#endif

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  constexpr std::int64_t count = M * N;
  std::int64_t i = 0;
#ifdef __AVX512F__
  const bool aligned = (reinterpret_cast<std::uintptr_t>(out) & 63) == 0;
  const __m512 one = _mm512_set1_ps(1.0f);
  for (; i + 16 <= count; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    const __m512 denominator = _mm512_add_ps(one, exp_ps(_mm512_sub_ps(_mm512_setzero_ps(), v)));
    const __m512 result = _mm512_div_ps(v, denominator);
    if (aligned) {
      _mm512_stream_ps(out + i, result);
    } else {
      _mm512_storeu_ps(out + i, result);
    }
  }
  _mm_sfence();
#endif
  for (; i < count; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
