// A kernel that skips the work when called again on the same inputs, leaving its outputs as they
// are. Timed turns vary inputs and outputs from call to call and check calls inside the turn, so
// the outputs it leaves are another call's.
// Every call of a timed turn now has inputs and outputs of its own, fresh for the turn (issue 23):
// nothing repeats, so it computes every call and PASSES, gaining nothing.
// expect: PASSED
// message: correct on
// time: yes
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  static float last_x0 = 0, last_y0 = 0, last_xn = 0;
  static bool valid = false;
  if (valid && x[0] == last_x0 && y[0] == last_y0 && x[N - 1] == last_xn) return;
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
  last_x0 = x[0], last_y0 = y[0], last_xn = x[N - 1], valid = true;
}
