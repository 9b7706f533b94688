// The seam between a platform that times and the statistics that judge: the per-call seconds of
// each side's turns, pair by pair, as a platform measured them (the CPU runner, a CUDA runner with
// events, an external evaluator). Every platform hands these over and gets back the same Timing,
// so a speedup means the same thing whichever hardware produced it.
#pragma once

#include <string>
#include <vector>

#include "platform/platform.h"

namespace accelopt::platform {

struct PairedTurns {
  std::vector<double> candidate_seconds;  // per call, one entry per pair, in the order timed
  std::vector<double> anchor_seconds;     // same length: entry i is pair i's anchor turn
  int candidate_calls_per_turn = 1;
  int anchor_calls_per_turn = 1;
  double kernel_seconds = 0;  // time spent inside timed turns, both sides
};

// Median of the paired ratios with its 95 % interval; converged when its half-width is within
// `target_half_width`. Throws InternalError on mismatched or empty samples, or a non-positive time.
Timing timing_from_turns(const PairedTurns& turns, const std::string& anchor_name,
                         double target_half_width);

}  // namespace accelopt::platform
