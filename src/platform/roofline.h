// Roofline scoring, the same on every platform: a task's counts (FMA FLOPs, other FLOPs, bytes)
// over a machine's ceilings give the least time the work can take; the score is that time over a
// measured latency. The ceilings come from the platform (measured, never from a data sheet).
#pragma once

#include "kernel/verdict.h"
#include "task/task.h"

namespace accelopt::platform {

// What one device can sustain, for the working set at hand.
struct Ceilings {
  double fma_gflops = 0;         // fused multiply-add (matrix) arithmetic
  double vector_gflops = 0;      // other arithmetic
  double gbytes_per_second = 0;  // memory bandwidth at this working set
};

// max(mm_flops/FMA, vec_flops/vector, bytes/bandwidth) and each ceiling's share of `latency`.
kernel::RooflineScore score_roofline(const task::RooflineCounts& counts, const Ceilings& ceilings,
                                     double latency_seconds);

// A latency with its 95 % interval.
struct LatencyInterval {
  double seconds = 0;
  double low = 0, high = 0;
};

// A latency derived from a reference latency and a paired speedup: anchor / speedup, the interval
// from the speedup's. Lets a run time its anchor once and score every candidate from its ratio.
LatencyInterval derive_latency(double anchor_latency_seconds, const kernel::Timing& timing);

// The score at the derived latency, with the % of peak that the latency's interval allows.
struct ScoreInterval {
  kernel::RooflineScore score;
  double percent_low = 0, percent_high = 0;
};
ScoreInterval score_derived_latency(const task::RooflineCounts& counts, const Ceilings& ceilings,
                                    const LatencyInterval& latency);

}  // namespace accelopt::platform
