// expect: COMPILE_ERROR
#include "accelopt_task.h"
template <long N> struct Deep { static constexpr long value = Deep<N - 1>::value + 1; };
template <> struct Deep<0> { static constexpr long value = 0; };
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict out) {
  out[0] = static_cast<float>(Deep<100000000>::value);
}
