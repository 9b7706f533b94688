// A correct kernel that skips the work when called again on the same inputs: every answer checks,
// but the timing would be a lie. The roofline says no.
// expect: REJECTED_PHYSICS
// time: yes
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  static float last_x0 = 0, last_y0 = 0, last_xn = 0;
  static bool valid = false;
  if (valid && x[0] == last_x0 && y[0] == last_y0 && x[N - 1] == last_xn) return;
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
  last_x0 = x[0], last_y0 = y[0], last_xn = x[N - 1], valid = true;
}
