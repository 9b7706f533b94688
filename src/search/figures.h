// One % of peak per run. A run times its baseline once, carefully (careful_timing: a longer budget
// and a tighter target than a candidate gets); every candidate's latency and % of peak are derived
// from that latency and the candidate's paired ratio against the baseline, so that in any table
// best % / baseline % == best speedup. Each verdict keeps what its own moment measured (its trace);
// tables show the derived figures.
#pragma once

#include <vector>

#include "kernel/verdict.h"
#include "platform/platform.h"
#include "roles/roles.h"
#include "search/confirmation.h"
#include "store/store.h"

namespace accelopt::search {

// What a table shows of a kernel: its speedup over the baseline and what follows from it.
struct Figures {
  double speedup = 0, speedup_low = 0, speedup_high = 0;
  double latency_seconds = 0, latency_low = 0, latency_high = 0;
  double percent_of_peak = 0, percent_low = 0, percent_high = 0;
};

// The run's scale: the baseline's careful latency and its % of peak.
class RunScale {
 public:
  RunScale() = default;  // no baseline yet: every figure is 0
  // From the baseline's verdict (timed against itself): its latency and its score at that latency.
  explicit RunScale(const kernel::Verdict& baseline);
  // From the baseline's latency and its % of peak at that latency.
  RunScale(double baseline_latency_seconds, double baseline_percent_of_peak)
      : latency_(baseline_latency_seconds), percent_(baseline_percent_of_peak) {}

  double baseline_latency() const { return latency_; }
  double baseline_percent() const { return percent_; }
  // The baseline itself: 1x by definition, at the baseline's % of peak.
  Figures baseline() const;
  // A speedup over the baseline (a candidate's timing, or a confirmation's).
  Figures of(double speedup, double low, double high) const;
  // A verdict timed against the baseline; zeros for one that failed or was not timed.
  Figures of(const kernel::Verdict& verdict) const;

 private:
  double latency_ = 0;
  double percent_ = 0;
};

// A kernel's figures as the agents are told them: for the baseline 1x by definition; for another
// kernel `verdict`'s paired timing against the baseline (taken in `iteration`), with those of
// `others` (other measurements of the same pair) whose 95 % interval is disjoint from it. None for
// a kernel that failed or was not timed.
std::optional<roles::KernelFigures> kernel_figures(const RunScale& scale,
                                                   const kernel::Verdict& verdict, bool baseline,
                                                   int iteration,
                                                   const std::vector<roles::NamedSpeedup>& others);

// A kernel's re-timing against the baseline, as the prompts and the reports name it.
struct BaselineRetiming {
  int64_t candidate = 0;
  roles::NamedSpeedup measured;
};

// What a run re-timed against its `baseline` apart from the search's own timings: the rewrites its
// memory kept whose slow side is the baseline (`entries` of the run `run_id`; the dropped ones are
// not stored) and the final confirmation's passed measurements.
std::vector<BaselineRetiming> baseline_retimings(
    int64_t run_id, int64_t baseline, const std::vector<store::MemoryEntryRecord>& entries,
    const std::optional<Confirmation>& confirmation);

// The timing for what outlives a moment (a run's baseline, the rewrites its memory keeps, its final
// confirmation): half the candidates' target interval, three times their budget, twice their
// minimum of pairs.
platform::TimingOptions careful_timing(const platform::TimingOptions& candidate);

}  // namespace accelopt::search
