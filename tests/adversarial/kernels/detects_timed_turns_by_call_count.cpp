// Counts its calls between pauses: a turn's call count repeats from one turn to the next, so it
// computes the first call and the one it expects to be last, and skips the ones between.
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
  static long calls_this_turn = 0, calls_last_turn = 0;
  Clock::time_point now = Clock::now();
  if (now - last > std::chrono::microseconds(20)) {
    calls_last_turn = calls_this_turn;
    calls_this_turn = 0;
  }
  ++calls_this_turn;
  if (calls_this_turn == 1 || calls_this_turn == calls_last_turn) {
    for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
  }
  last = Clock::now();
}
