// How busy the machine is, from /proc/stat: the context every timed measurement is kept with.
//
// Paired timing (paired_timing.h) cancels what slows both sides alike, and one-thread tasks are
// timed on CPU time, but a loaded machine still moves figures: caches and memory bandwidth are
// shared, and a preempted turn is split. /proc/stat counts each core's time in USER_HZ ticks
// (10 ms), so one 20 ms turn sees a tick or two; summed over a timing's turns the shares are
// close. Figures behind the thresholds: docs/harness.md, "The machine's state".
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernel/verdict.h"

namespace accelopt::platform {

// Above either share during the timed turns, or when the runners waited for their core (another
// process on the timed core: a second evaluation) more than kBusyWaitedForCore of the turns' wall
// time, a timing is marked busy. Measured on silu small (docs/harness.md, "The machine's state"):
// quiet 0 % busy and 0.1 preemptions a pair; `yes` on the other core 100 % and 4.2; a second
// evaluation alongside 6-13 % and 2.4. A count of preemptions says little about a turn of 100 ms
// (a quiet machine's kernel threads preempt it a few times for microseconds), so where the waits
// are known they decide; where not (many threads), more than one preemption a pair does.
inline constexpr double kBusyOtherCores = 0.5;
inline constexpr double kBusySteal = 0.05;
inline constexpr double kBusyWaitedForCore = 0.05;
inline constexpr double kBusyPreemptionsPerPair = 1;
// Before the pairs, the harness waits for the other cores to fall under kBusyOtherCores (for at
// most TimingOptions::quiet_wait_seconds), sampling every kQuietSample.
inline constexpr std::chrono::milliseconds kQuietSample{100};  // 10 ticks of a core

// Ticks since boot: the other cores' (all but the timed ones) busy and total, and all cores'
// steal and total.
struct CpuTicks {
  int64_t other_busy = 0, other_total = 0;
  int64_t steal = 0, total = 0;

  CpuTicks operator-(const CpuTicks& earlier) const;
  CpuTicks& operator+=(const CpuTicks& more);
  double other_busy_share() const;
  double steal_share() const;
};

// /proc/stat now, `timed_cores` counted apart; nullopt where it cannot be read (not Linux).
std::optional<CpuTicks> read_cpu_ticks(const std::vector<int>& timed_cores);

// Waits, up to `most_seconds`, until the other cores were busy under kBusyOtherCores for one
// sample; returns the seconds waited beyond that sample. `seen` is the load over turns just run
// and `seen_seconds` their wall time: turns that cover a sample and found the cores quiet are the
// sample; turns that cover part of one shorten the first sample by as much.
double wait_for_quiet(const std::vector<int>& timed_cores, double most_seconds,
                      const CpuTicks& seen = {}, double seen_seconds = 0);

// The load over the turns' ticks, preemptions and waits for a core (their share of the turns' wall
// time, where known), busy or not by the thresholds above.
kernel::MachineLoad machine_load(const CpuTicks& ticks, int64_t involuntary_switches,
                                 std::optional<double> waited_for_core_share, int pairs,
                                 double waited_seconds);

}  // namespace accelopt::platform
