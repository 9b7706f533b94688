// One % of peak per run. A run times its baseline once, carefully (careful_timing: a longer budget
// and a tighter target than a candidate gets); every candidate's latency and % of peak are derived
// from that latency and the candidate's speedup over the baseline, so that in any table
// best % / baseline % == best speedup. Each verdict keeps what its own moment measured (its trace);
// tables show the derived figures.
//
// One figure per pair. A kernel may be measured against the baseline more than once: the search's
// own paired timing, the memory's head-to-head re-timing, the final confirmation. On a shared
// machine those can disagree beyond their intervals (a memory-bound kernel against a
// compute-bound baseline moves with a neighbour's memory traffic): each interval is honest about
// its own minutes. The run's figure is then the most precise of them (the narrowest interval
// relative to its median); the others that disagree with it are kept and said beside it
// ("figures moved between measurements (5.66x → 15.25x): the machine's load changed").
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
  bool busy = false;  // the speedup, or the baseline's latency, was measured on a busy machine
};

// The run's scale: the baseline's careful latency and its % of peak.
class RunScale {
 public:
  RunScale() = default;  // no baseline yet: every figure is 0
  // From the baseline's verdict (timed against itself): its latency and its score at that latency.
  explicit RunScale(const kernel::Verdict& baseline);
  // From the baseline's latency and its % of peak at that latency.
  RunScale(double baseline_latency_seconds, double baseline_percent_of_peak, bool busy = false)
      : latency_(baseline_latency_seconds), percent_(baseline_percent_of_peak), busy_(busy) {}

  double baseline_latency() const { return latency_; }
  double baseline_percent() const { return percent_; }
  bool baseline_busy() const { return busy_; }  // the baseline was timed on a busy machine
  // The baseline itself: 1x by definition, at the baseline's % of peak.
  Figures baseline() const;
  // A speedup over the baseline (a candidate's timing, or a confirmation's); `busy`: it was
  // measured on a busy machine.
  Figures of(double speedup, double low, double high, bool busy = false) const;
  // A verdict timed against the baseline; zeros for one that failed or was not timed.
  Figures of(const kernel::Verdict& verdict) const;
  Figures of(const roles::NamedSpeedup& measured) const;

 private:
  double latency_ = 0;
  double percent_ = 0;
  bool busy_ = false;
};

// Two measurements of one pair whose 95 % intervals do not overlap.
bool disjoint(const roles::NamedSpeedup& a, const roles::NamedSpeedup& b);
// The most precise of `measured`: the narrowest interval relative to its median (high / low);
// the latest among equals (a re-timing over the search's own, which it follows). nullptr when
// none was timed.
const roles::NamedSpeedup* most_precise(const std::vector<roles::NamedSpeedup>& measured);
// "figures moved between measurements (5.66x → 15.25x): the machine's load changed", the sentence
// every place that shows two disagreeing measurements of a pair uses.
std::string moved_text(const roles::NamedSpeedup& before, const roles::NamedSpeedup& after);
// A verdict's own paired timing against the baseline as a named measurement: "search, iteration
// 3" ("search, at the start" in iteration 0).
roles::NamedSpeedup search_measurement(const kernel::Verdict& verdict, int iteration);
// The names re-timings go by, in the progress, the prompts and the reports: "memory re-timing,
// iteration 3", "final confirmation after iteration 4" ("final confirmation": not known).
std::string memory_retiming_name(int iteration);
std::string confirmation_name(int iterations);
// " [busy]" after a figure measured on a busy machine, else empty: every table's mark, explained
// under the table by kBusyLegend.
std::string busy_mark(bool busy);
inline constexpr std::string_view kBusyLegend = "[busy]: measured while the machine was busy";

// A kernel's figures as the agents are told them: for the baseline 1x by definition; for another
// kernel the most precise of `verdict`'s paired timing against the baseline (taken in
// `iteration`) and `others` (other measurements of the same pair), with those disjoint from it.
// None for a kernel that failed or was not timed.
std::optional<roles::KernelFigures> kernel_figures(const RunScale& scale,
                                                   const kernel::Verdict& verdict, bool baseline,
                                                   int iteration,
                                                   const std::vector<roles::NamedSpeedup>& others);

// A kernel's re-timing against the baseline, as the prompts and the reports name it.
struct BaselineRetiming {
  int64_t candidate = 0;
  roles::NamedSpeedup measured;
};

// A head-to-head re-timing of `candidate` against `against` (the baseline or another kernel).
struct PairRetiming {
  int64_t candidate = 0, against = 0;
  roles::NamedSpeedup measured;
};

// Every pair a run re-timed head to head that outlives it: the memory's re-timings (`memory`, as
// the last checkpoint keeps them, kept or not), the rewrites its memory kept (`entries` of the run
// `run_id`, fast against slow: older runs' checkpoints hold no re-timings) and the final
// confirmation's passed measurements; each (pair, name) once.
std::vector<PairRetiming> run_retimings(int64_t run_id,
                                        const std::vector<store::MemoryEntryRecord>& entries,
                                        const std::optional<Confirmation>& confirmation,
                                        const std::vector<NamedMeasurement>& memory = {});

// What a run re-timed against its `baseline` apart from the search's own timings: the rewrites its
// memory kept whose slow side is the baseline (`entries` of the run `run_id`; the dropped ones are
// not stored) and the final confirmation's passed measurements.
std::vector<BaselineRetiming> baseline_retimings(
    int64_t run_id, int64_t baseline, const std::vector<store::MemoryEntryRecord>& entries,
    const std::optional<Confirmation>& confirmation,
    const std::vector<NamedMeasurement>& memory = {});

// The timing for what outlives a moment (a run's baseline, the rewrites its memory keeps, its final
// confirmation): half the candidates' target interval, three times their budget, twice their
// minimum of pairs.
platform::TimingOptions careful_timing(const platform::TimingOptions& candidate);

}  // namespace accelopt::search
