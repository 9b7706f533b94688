// Roofline scoring, the same on every platform: a task's counts (FMA FLOPs, other FLOPs, bytes)
// over a machine's ceilings give the least time the work can take; the score is that time over a
// measured latency. The ceilings come from the platform (measured, never from a data sheet).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/json.h"
#include "kernel/verdict.h"
#include "task/task.h"

namespace accelopt::platform {

// What one device can sustain, for the working set at hand.
struct Ceilings {
  double fma_gflops = 0;         // fused multiply-add (matrix) arithmetic
  double vector_gflops = 0;      // other arithmetic
  double gbytes_per_second = 0;  // memory bandwidth at this working set
};

struct BandwidthPoint {
  double working_set_bytes = 0;
  double gbytes_per_second = 0;
};

// Which cores a device's ceilings were measured on. The CPU probe times one core, so a task that
// runs on T threads may reach T times its ceilings; a GPU's or an evaluator's ceilings are the
// whole device's already.
enum class CeilingScope : uint8_t { kOneCore, kWholeDevice };

// A device's measured ceilings by working set: FMA and vector peaks, and streaming bandwidth at
// each working-set size (a kernel whose bytes fit in a cache meets that cache's bandwidth). Every
// platform's probe fills one; the roofline score reads only this.
struct Peaks {
  double fma_gflops = 0;
  double vector_gflops = 0;
  std::vector<BandwidthPoint> bandwidth;  // ascending working sets
  CeilingScope scope = CeilingScope::kOneCore;
  // Faster matrix ceilings for narrow inputs, by dtype name ("bfloat16", "float16"), where the
  // device has them: a CPU's bfloat16 dot products (vdpbf16ps), a GPU's tensor cores.
  std::map<std::string, double> narrow_matrix_gflops;

  // The dtype whose narrow matrix ceiling binds `task` (the fastest among its inputs' dtypes, and
  // faster than the FMAs), or "" for the FMA ceiling: a kernel may feed its multiply-adds to the
  // faster units, and % of peak is against the least time the work can take on this device.
  std::string narrow_matrix_dtype(const task::Task& task) const;
  // These peaks with that matrix ceiling in place of the FMA one.
  Peaks for_task(const task::Task& task) const;

  // Nothing measured: no roofline score and no physics check.
  bool empty() const { return fma_gflops <= 0 && vector_gflops <= 0 && bandwidth.empty(); }
  // Interpolated on log(working set); clamped at both ends.
  double bandwidth_at(double working_set_bytes) const;
  // The ceilings a kernel that moves this many bytes meets.
  Ceilings ceilings_for(double working_set_bytes) const;
  // These peaks with the ceiling named `bound` ("fma", "vector" or "memory", at every working
  // set) set to `value` (GFLOP/s or GB/s).
  Peaks with_ceiling(const std::string& bound, double value) const;
  // The figure of the ceiling named `bound` for `working_set_bytes`.
  double ceiling(const std::string& bound, double working_set_bytes) const;
  // Adds "fma_gflops", "vector_gflops", "bandwidth" ([{"working_set_bytes", "gbytes_per_second"}]),
  // "scope" ("one_core" or "whole_device") and, where any, "narrow_matrix_gflops" to `json`.
  void write_json(Json& json) const;
  // `scope` when the JSON names none (files written before it did).
  static Peaks from_json(const Json& json, CeilingScope scope);
};

// The ceiling that binds a task, timed again interleaved with a timing's turns, so that it saw
// the machine the latency saw (platform/cpu: a run's baseline).
struct CeilingAlongside {
  std::string bound;  // "fma", "vector" or "memory"
  double value = 0;   // the median of the samples: GFLOP/s or GB/s
  int samples = 0;
};

// max(mm_flops/FMA, vec_flops/vector, bytes/bandwidth) and each ceiling's share of `latency`.
kernel::RooflineScore score_roofline(const task::RooflineCounts& counts, const Ceilings& ceilings,
                                     double latency_seconds);

// score_roofline at the ceilings `peaks` has for the task's bytes.
kernel::RooflineScore score_roofline(const task::RooflineCounts& counts, const Peaks& peaks,
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
