#include "platform/paired_turns.h"

#include <algorithm>

#include "common/error.h"
#include "platform/statistics.h"

namespace accelopt::platform {

Timing timing_from_turns(const PairedTurns& turns, const std::string& anchor_name,
                         double target_half_width) {
  if (turns.candidate_seconds.empty() ||
      turns.candidate_seconds.size() != turns.anchor_seconds.size()) {
    throw InternalError("timing needs as many anchor turns as candidate turns, and at least one (" +
                        std::to_string(turns.candidate_seconds.size()) + " candidate, " +
                        std::to_string(turns.anchor_seconds.size()) + " anchor)");
  }
  Timing timing;
  timing.anchor = anchor_name;
  for (size_t pair = 0; pair < turns.candidate_seconds.size(); ++pair) {
    double candidate = turns.candidate_seconds[pair], anchor = turns.anchor_seconds[pair];
    if (!(candidate > 0) || !(anchor > 0)) {
      throw InternalError("timed turn " + std::to_string(pair + 1) +
                          " has a non-positive per-call time");
    }
    timing.ratios.push_back(candidate / anchor);
  }
  MedianInterval ratio = median_interval(timing.ratios);
  timing.pairs = static_cast<int>(timing.ratios.size());
  timing.candidate_calls_per_turn = turns.candidate_calls_per_turn;
  timing.anchor_calls_per_turn = turns.anchor_calls_per_turn;
  timing.kernel_seconds = turns.kernel_seconds;
  timing.anchor_latency_seconds = median(turns.anchor_seconds);
  timing.candidate_median_seconds = median(turns.candidate_seconds);
  timing.speedup = 1 / ratio.median;
  timing.speedup_low = 1 / ratio.high;
  timing.speedup_high = 1 / ratio.low;
  timing.latency_seconds = timing.anchor_latency_seconds * ratio.median;
  timing.latency_low = timing.anchor_latency_seconds * ratio.low;
  timing.latency_high = timing.anchor_latency_seconds * ratio.high;
  double half_width = std::max(ratio.median - ratio.low, ratio.high - ratio.median) / ratio.median;
  timing.converged = half_width <= target_half_width;
  return timing;
}

}  // namespace accelopt::platform
