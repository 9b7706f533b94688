// Interleaved paired timing, the same on every platform. A candidate and an anchor take turns on
// one device; each turn runs k calls of one side while the other is idle, and each pair of turns
// gives one ratio candidate/anchor. The platform supplies the turns (PairedTurns); this file
// supplies the rest:
//
//   calibrate k per side (a turn lasts ≥ min_turn_seconds, and as long as the platform's work
//   around a turn within the budget's means), then one k for both sides, the larger within the
//   budget (a turn's cold first call weighs the same on both) → warm-up turns → pairs, candidate
//   first in even pairs and second in odd ones (ABBA: a linear drift of the machine cancels) →
//   after min_pairs, stop when the 95 % interval of the median ratio is within ±target, or when the
//   budget is spent.
//
// Ratios use the sides' CPU time where the platform gives it for both (TurnResult::cpu_seconds),
// else wall time. CPU time leaves out what a kernel spends blocked, so a pair whose turn was
// blocked off the CPU for more than kMostOffCpuShare of it (a kernel that sleeps or waits in its
// calls) is timed on the sides' own time, CPU plus blocked (the wall time less the waits for a
// core, which are other processes' doing), or on the wall clock where that is not known; the
// blocked time is the kernel's to pay for. The interval is
// median_interval_series (statistics.h): ratios of neighbouring pairs are alike when the machine
// has slow phases, and the interval widens by as much as they are.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "platform/machine_load.h"
#include "platform/platform.h"

namespace accelopt::platform {

enum class Side : uint8_t { kCandidate, kAnchor };

// What a candidate earns when one of its turns fails (crash, timeout, wrong answers after a turn).
struct TurnFailure {
  Status status = Status::kRuntimeError;
  std::string message;
};

struct TurnResult {
  double seconds = 0;  // the whole turn, timed from outside the kernel
  // The side's own CPU time in the turn, where the platform can read it and the side runs on one
  // core. Ratios use it when both turns of a pair have it: on a busy machine the moments when
  // other processes hold the core are not the kernel's, and they are most of the noise.
  std::optional<double> cpu_seconds;
  // The wall time the side was neither running nor waiting for a core: blocked, sleeping (with
  // many threads: the threads' idle share of threads × wall). Where the platform can tell.
  std::optional<double> off_cpu_seconds;
  // The wall time the side waited for a core held by another process (one-thread sides).
  std::optional<double> waiting_seconds;
  std::optional<CpuTicks> ticks;     // /proc/stat over the turn (machine_load.h)
  int64_t involuntary_switches = 0;  // the side was preempted this many times in the turn
  std::optional<TurnFailure> failure;
};

// A turn whose off-CPU time is above this share of its wall time is timed on the wall clock.
// Honest silu turns on this project's loaded 2-core VM: median 0 % (small) and 0.2 % (cpu, 75 ms
// calls), 90th percentile 0.2 % and 1.8 %, the worst 12 % (docs/harness.md, "Wall time and CPU
// time"). 5 %: few honest pairs leave CPU time, and a kernel hides at most 5 % by blocking.
inline constexpr double kMostOffCpuShare = 0.05;

// A platform's two sides. Both must be treated alike: the same input rotation, the same cache
// state before a turn, the idle side truly idle.
class PairedTurns {
 public:
  virtual ~PairedTurns() = default;
  // Runs `calls` calls of `side` as one turn. A failing anchor is not the candidate's fault: the
  // platform throws (UserError) instead of returning a failure for it.
  virtual TurnResult run_turn(Side side, int calls) = 0;
  // The cores the sides run on: the machine's load is the others' (machine_load.h).
  virtual std::vector<int> timed_cores() const { return {}; }
  // The most calls one turn may have (the CPU's turns give every call slots of its own).
  virtual int most_calls_per_turn() const { return std::numeric_limits<int>::max(); }
  // Calibration is over: the turns from here on (warm-up, then pairs) come in pairs with the same
  // calls, a side's n-th such turn beside the other side's n-th.
  virtual void begin_timed_turns() {}
  // Seconds a call of `side` took in calls it made before timing, in the process and on the
  // buffers its turns use (the CPU's correctness turn): its cold first call is paid for, so
  // calibration skips it and starts from the count these seconds give. Nullopt: none were made.
  virtual std::optional<double> seconds_per_call_before(Side) const { return std::nullopt; }
};

struct PairedTiming {
  std::optional<Timing> timing;  // set unless a candidate turn failed
  std::optional<TurnFailure> failure;
};

PairedTiming time_paired(PairedTurns& turns, const TimingOptions& options,
                         const std::string& anchor_name);

// The speedup, latency and their intervals from `timing.ratios` and the anchor's per-call times.
void summarize_ratios(Timing& timing, const std::vector<double>& anchor_seconds_per_call,
                      const std::vector<double>& candidate_seconds_per_call);

}  // namespace accelopt::platform
