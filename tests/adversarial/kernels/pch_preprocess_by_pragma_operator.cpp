// _Pragma builds a #pragma GCC pch_preprocess as the kernel's first token, which makes the compiler
// open the file it names as a precompiled header (issue 23, class 7): the pragma was on no refusal
// list, and the compiler read /usr/include/stdio.h ("PCH file was invalid"). Pragmas are now an
// allow-list: any pragma in the kernel's own lines that the rules do not list as allowed is refused,
// whatever it does.
// expect: REJECTED_SOURCE
// message: only the pragmas the rules list as allowed
_Pragma("GCC pch_preprocess \"/usr/include/stdio.h\"")
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
