// Correct for its first 200 calls, then never returns: the hang starts inside a timed turn, whose
// calls may number thousands. The turn's deadline follows the calls' measured time, so this is a
// TIMEOUT within seconds, not after the per-call timeout times the turn's calls (hours).
// expect: TIMEOUT
// message: did not return
// time: yes
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y,
                       float* __restrict out) {
  static long calls = 0;
  if (++calls > 200) {
    volatile bool forever = true;
    while (forever) out[0] = 1.0f;
  }
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
