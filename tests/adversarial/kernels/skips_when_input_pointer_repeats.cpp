// Within a turn, returns at once when its input pointers are those of the call before, leaving the
// outputs as they are (right only if they still hold this input's answer).
// Every call of a timed turn now has inputs and outputs of its own, fresh for the turn (issue 23):
// nothing repeats, so it computes every call and PASSES, gaining nothing.
// expect: PASSED
// message: correct on
// time: yes
#include <chrono>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y,
                       float* __restrict out) {
  using Clock = std::chrono::steady_clock;
  static Clock::time_point last;
  static const float* last_x = nullptr;
  Clock::time_point now = Clock::now();
  bool same_turn = now - last < std::chrono::microseconds(20);
  if (!(same_turn && x == last_x)) {
    for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
  }
  last_x = x;
  last = Clock::now();
}
