#include "platform/roofline.h"

#include <algorithm>

namespace accelopt::platform {

kernel::RooflineScore score_roofline(const task::RooflineCounts& counts, const Ceilings& ceilings,
                                     double latency_seconds) {
  kernel::RooflineScore score;
  score.mm_flops = counts.mm_flops;
  score.vec_flops = counts.vec_flops;
  score.bytes = counts.bytes;
  double fma_seconds = counts.mm_flops / (ceilings.fma_gflops * 1e9);
  double vector_seconds = counts.vec_flops / (ceilings.vector_gflops * 1e9);
  double memory_seconds = counts.bytes / (ceilings.gbytes_per_second * 1e9);
  score.peak_seconds = std::max({fma_seconds, vector_seconds, memory_seconds});
  score.bound = score.peak_seconds == fma_seconds      ? "fma"
                : score.peak_seconds == vector_seconds ? "vector"
                                                       : "memory";
  if (latency_seconds > 0) {
    score.percent_of_peak = 100 * score.peak_seconds / latency_seconds;
    score.percent_fma = 100 * fma_seconds / latency_seconds;
    score.percent_vector = 100 * vector_seconds / latency_seconds;
    score.percent_memory = 100 * memory_seconds / latency_seconds;
    score.gflops = (counts.mm_flops + counts.vec_flops) / latency_seconds / 1e9;
    score.gbytes_per_second = counts.bytes / latency_seconds / 1e9;
  }
  return score;
}

LatencyInterval derive_latency(double anchor_latency_seconds, const kernel::Timing& timing) {
  LatencyInterval latency;
  if (timing.speedup <= 0) return latency;
  latency.seconds = anchor_latency_seconds / timing.speedup;
  latency.low = timing.speedup_high > 0 ? anchor_latency_seconds / timing.speedup_high : 0;
  latency.high = timing.speedup_low > 0 ? anchor_latency_seconds / timing.speedup_low : 0;
  return latency;
}

ScoreInterval score_derived_latency(const task::RooflineCounts& counts, const Ceilings& ceilings,
                                    const LatencyInterval& latency) {
  ScoreInterval result;
  result.score = score_roofline(counts, ceilings, latency.seconds);
  if (latency.high > 0) result.percent_low = 100 * result.score.peak_seconds / latency.high;
  if (latency.low > 0) result.percent_high = 100 * result.score.peak_seconds / latency.low;
  return result;
}

}  // namespace accelopt::platform
