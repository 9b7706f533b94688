#include "platform/paired_timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "platform/roofline.h"
#include "platform/statistics.h"

namespace accelopt::platform {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One turn's seconds per call: wall time, and CPU time where the platform gave it.
struct PerCall {
  double wall = 0;
  std::optional<double> cpu;
  // CPU time plus time blocked: the wall time less the waits for a core, where both are known.
  std::optional<double> own;
  double off_cpu_share = 0;  // of the turn's wall time
};

// The runners' waits for a core over some turns, and those turns' wall time; unknown when a turn
// did not say (many threads, or a platform that cannot read it).
struct CoreWaits {
  double waiting_seconds = 0;
  double wall_seconds = 0;
  bool unknown = false;

  std::optional<double> share() const {
    if (unknown || wall_seconds <= 0) return std::nullopt;
    return waiting_seconds / wall_seconds;
  }
};

struct TurnsLoad {
  CpuTicks ticks;
  double ticks_seconds = 0;  // the wall time of the turns `ticks` were counted over
  int64_t involuntary_switches = 0;
  CoreWaits waits;
};

// A side's calls per turn, and the fewest wall seconds per call its calibration turns took.
struct Calibration {
  int calls = 1;
  double seconds_per_call = 0;
};

// Runs turns and keeps the account: seconds spent inside turns, and the first candidate failure.
class TurnTaker {
 public:
  explicit TurnTaker(PairedTurns& turns) : turns_(turns) {}

  // Seconds per call, or nullopt when the candidate failed (failure() says how).
  std::optional<PerCall> turn(Side side, int calls) {
    auto start = Clock::now();
    TurnResult result = turns_.run_turn(side, calls);
    last_untimed_seconds_ = std::max(0.0, seconds_since(start) - result.seconds);
    timed_seconds_ += result.seconds;
    if (result.failure) {
      failure_ = std::move(result.failure);
      return std::nullopt;
    }
    PerCall per_call;
    per_call.wall = result.seconds / calls;
    if (result.cpu_seconds) per_call.cpu = *result.cpu_seconds / calls;
    if (result.off_cpu_seconds && result.seconds > 0) {
      per_call.off_cpu_share = *result.off_cpu_seconds / result.seconds;
    }
    if (result.cpu_seconds && result.off_cpu_seconds) {
      per_call.own = (*result.cpu_seconds + *result.off_cpu_seconds) / calls;
    }
    if (result.ticks) {
      ticks_ += *result.ticks;
      ticks_seconds_ += result.seconds;
    }
    involuntary_switches_ += result.involuntary_switches;
    if (result.waiting_seconds) {
      waits_.waiting_seconds += *result.waiting_seconds;
      waits_.wall_seconds += result.seconds;
    } else {
      waits_.unknown = true;
    }
    return per_call;
  }

  // Wall seconds per call, or nullopt when the candidate failed.
  std::optional<double> per_call(Side side, int calls) {
    std::optional<PerCall> result = turn(side, calls);
    if (!result) return std::nullopt;
    return result->wall;
  }

  // The calls per turn that make a turn last at least `min_turn_seconds`, and at least as long as
  // the platform's work around a turn (writing inputs, checking outputs: on large workloads it can
  // take several times a short turn). Turns that short would spend most of the budget outside the
  // timed turns and leave each pair's two turns far apart in the machine's moods; up to
  // `longest_turn_seconds`. Also the fewest wall seconds per call seen, the first call left out.
  std::optional<Calibration> calibrate(Side side, double min_turn_seconds,
                                       double longest_turn_seconds) {
    // The first call pays for page faults and cold caches; it must not set the pace. Where the
    // side made calls before timing, it paid for them then, and their pace gives the first count
    // to try (at most 64: the ramp's largest step).
    std::optional<double> before = turns_.seconds_per_call_before(side);
    if (!before && !per_call(side, 1)) return std::nullopt;
    Calibration result{1, 1e30};
    int most = std::max(1, turns_.most_calls_per_turn());
    if (before) {
      double needed = std::ceil(min_turn_seconds * 1.2 / std::max(*before, 1e-9));
      result.calls =
          static_cast<int>(std::clamp(needed, 1.0, static_cast<double>(std::min(most, 64))));
    }
    for (int attempt = 0; attempt < 12; ++attempt) {
      std::optional<double> seconds = per_call(side, result.calls);
      if (!seconds) return std::nullopt;
      result.seconds_per_call = std::min(result.seconds_per_call, *seconds);
      double wanted =
          std::max(min_turn_seconds, std::min(last_untimed_seconds_, longest_turn_seconds));
      if (*seconds * result.calls >= wanted || result.calls >= most) return result;
      int needed = static_cast<int>(std::ceil(wanted * 1.2 / std::max(*seconds, 1e-9)));
      result.calls = std::min(std::clamp(needed, result.calls + 1, result.calls * 64), most);
    }
    return result;
  }

  double timed_seconds() const { return timed_seconds_; }
  std::optional<TurnFailure> take_failure() { return std::move(failure_); }
  // The load since the last call, over the turns only.
  TurnsLoad take_load() {
    return {std::exchange(ticks_, {}), std::exchange(ticks_seconds_, 0),
            std::exchange(involuntary_switches_, 0), std::exchange(waits_, {})};
  }

 private:
  PairedTurns& turns_;
  double timed_seconds_ = 0;
  double last_untimed_seconds_ = 0;  // the last turn's wall time outside the timed calls
  std::optional<TurnFailure> failure_;
  CpuTicks ticks_;
  double ticks_seconds_ = 0;
  int64_t involuntary_switches_ = 0;
  CoreWaits waits_;
};

// One count for both sides, chosen from both calibrations. A turn's first call is cold (the other
// side and the harness's writes went through the caches since), and each side's share of such
// calls must be the same: an adamw A/A evaluation whose anchor calibrated at a slow moment ran 13
// calls a turn against 1 and came out 1.54x [1.39, 1.85]. The larger count, unless the slower
// side's turn would then last over 4 longest turns (as it could before, when counts within 4x of
// each other were made equal; a slow moment during calibration must not cut the count); never below
// what the slower side needs.
int common_calls_per_turn(const Calibration& candidate, const Calibration& anchor,
                          double longest_turn_seconds) {
  int most = std::max(candidate.calls, anchor.calls);
  int least = std::min(candidate.calls, anchor.calls);
  double slower = std::max(candidate.seconds_per_call, anchor.seconds_per_call);
  double fits = std::floor(4 * longest_turn_seconds / std::max(slower, 1e-12));
  int cap = static_cast<int>(std::min<double>(fits, most));
  return std::max({std::min(most, cap), least, 1});
}

double relative_half_width(const MedianInterval& ratio) {
  return std::max(ratio.median - ratio.low, ratio.high - ratio.median) / ratio.median;
}

}  // namespace

void summarize_ratios(Timing& timing, const std::vector<double>& anchor_seconds_per_call,
                      const std::vector<double>& candidate_seconds_per_call) {
  MedianInterval ratio = median_interval_series(timing.ratios);
  timing.pairs = static_cast<int>(timing.ratios.size());
  timing.anchor_latency_seconds = median(anchor_seconds_per_call);
  timing.candidate_median_seconds = median(candidate_seconds_per_call);
  timing.speedup = 1 / ratio.median;
  timing.speedup_low = 1 / ratio.high;
  timing.speedup_high = 1 / ratio.low;
  LatencyInterval latency = derive_latency(timing.anchor_latency_seconds, timing);
  timing.latency_seconds = latency.seconds;
  timing.latency_low = latency.low;
  timing.latency_high = latency.high;
}

PairedTiming time_paired(PairedTurns& turns, const TimingOptions& options,
                         const std::string& anchor_name) {
  TurnTaker taker(turns);
  auto failed = [&] { return PairedTiming{std::nullopt, taker.take_failure()}; };

  // Long enough turns, but min_pairs pairs of them (four turns' time each, with the work around
  // them) still fit in the budget.
  double longest_turn =
      std::max(options.min_turn_seconds, options.budget_seconds / (4.0 * options.min_pairs));
  std::optional<Calibration> candidate_calibration =
      taker.calibrate(Side::kCandidate, options.min_turn_seconds, longest_turn);
  if (!candidate_calibration) return failed();
  std::optional<Calibration> anchor_calibration =
      taker.calibrate(Side::kAnchor, options.min_turn_seconds, longest_turn);
  if (!anchor_calibration) return failed();
  int calls = common_calls_per_turn(*candidate_calibration, *anchor_calibration, longest_turn);
  turns.begin_timed_turns();

  Timing timing;
  timing.anchor = anchor_name;
  timing.candidate_calls_per_turn = timing.anchor_calls_per_turn = calls;
  for (int warmup = 0; warmup < options.warmup_turns; ++warmup) {
    if (!taker.per_call(Side::kCandidate, calls)) return failed();
    if (!taker.per_call(Side::kAnchor, calls)) return failed();
  }

  // A machine busy with other work slows memory-bound kernels and splits turns: wait a little for
  // a quieter moment, then count the load over the pairs' turns alone. The turns so far saw the
  // other cores as a sample would: where they were quiet long enough, no sample is taken.
  TurnsLoad before_pairs = taker.take_load();
  double waited = wait_for_quiet(turns.timed_cores(), options.quiet_wait_seconds,
                                 before_pairs.ticks, before_pairs.ticks_seconds);
  taker.take_load();

  std::vector<double> candidate_seconds, anchor_seconds;
  std::vector<double> candidate_off_cpu, anchor_off_cpu;
  auto start = Clock::now();
  for (int pair = 0; pair < options.max_pairs; ++pair) {
    std::optional<PerCall> candidate, anchor;
    if (pair % 2 == 0) {
      if (!(candidate = taker.turn(Side::kCandidate, calls))) return failed();
      if (!(anchor = taker.turn(Side::kAnchor, calls))) return failed();
    } else {
      if (!(anchor = taker.turn(Side::kAnchor, calls))) return failed();
      if (!(candidate = taker.turn(Side::kCandidate, calls))) return failed();
    }
    // Both sides on the same clock: CPU time when both turns have it and neither spent its time
    // blocked, which CPU time would not count; when one did, CPU time plus blocked time, so the
    // blocking is charged and the waits for a core (another process's doing) are not: on the
    // wall clock a neighbour's preemptions stretched the computing side alone (a kernel sleeping
    // 100 ms a call read 1.54x its baseline under a loaded test suite).
    candidate_off_cpu.push_back(candidate->off_cpu_share);
    anchor_off_cpu.push_back(anchor->off_cpu_share);
    bool blocked = std::max(candidate->off_cpu_share, anchor->off_cpu_share) > kMostOffCpuShare;
    bool cpu = candidate->cpu && anchor->cpu;
    bool own = blocked && candidate->own && anchor->own;
    if (cpu && blocked) ++timing.wall_clock_pairs;
    if (own) {
      candidate_seconds.push_back(*candidate->own);
      anchor_seconds.push_back(*anchor->own);
    } else {
      candidate_seconds.push_back(cpu && !blocked ? *candidate->cpu : candidate->wall);
      anchor_seconds.push_back(cpu && !blocked ? *anchor->cpu : anchor->wall);
    }
    timing.ratios.push_back(candidate_seconds.back() / anchor_seconds.back());
    if (static_cast<int>(timing.ratios.size()) < options.min_pairs) continue;
    if (relative_half_width(median_interval_series(timing.ratios)) <= options.target_half_width) {
      timing.converged = true;
      break;
    }
    if (seconds_since(start) > options.budget_seconds) break;
  }
  summarize_ratios(timing, anchor_seconds, candidate_seconds);
  timing.kernel_seconds = taker.timed_seconds();
  timing.candidate_off_cpu = median(candidate_off_cpu);
  timing.anchor_off_cpu = median(anchor_off_cpu);
  TurnsLoad load = taker.take_load();
  timing.load =
      machine_load(load.ticks, load.involuntary_switches, load.waits.share(), timing.pairs, waited);
  return {timing, std::nullopt};
}

}  // namespace accelopt::platform
