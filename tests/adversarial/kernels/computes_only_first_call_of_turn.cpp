// Computes only on the first call of a turn (more than 20 µs since its last call means a
// new turn) and returns at once on the others. Every call the harness checks one at a time is
// right; in a timed turn only the first call's outputs are.
// Since issue 44 the correctness cases are themselves a turn (a slot each, as timed turns), so
// this is refused there, before timing: the calls it skips leave their outputs unwritten.
// expect: INCORRECT_NUMERICAL
// message: never written
// time: yes
#include <chrono>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y,
                       float* __restrict out) {
  using Clock = std::chrono::steady_clock;
  static Clock::time_point last;
  Clock::time_point now = Clock::now();
  if (now - last > std::chrono::microseconds(20)) {
    for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
  }
  last = Clock::now();
}
