#include "platform/paired_timing.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "platform/roofline.h"

namespace accelopt::platform {
namespace {

// Sides with fixed per-call times and a slow phase every `phase` turns; records each turn.
class FakeTurns : public PairedTurns {
 public:
  FakeTurns(double candidate_seconds, double anchor_seconds)
      : candidate_seconds_(candidate_seconds), anchor_seconds_(anchor_seconds) {}

  void begin_timed_turns() override { timed_from.push_back(static_cast<int>(sides.size())); }

  TurnResult run_turn(Side side, int calls) override {
    sides.push_back(side);
    calls_made.push_back(calls);
    // The platform's work around the turn (loading and checking tensors), outside the timed calls.
    if (untimed_seconds > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(untimed_seconds));
    double per_call = side == Side::kCandidate ? candidate_seconds_ : anchor_seconds_;
    if (side == Side::kAnchor && anchor_turns_++ < anchor_slow_turns) per_call *= slow_factor;
    TurnResult result;
    result.seconds = per_call * calls;
    const std::optional<double>& cpu = side == Side::kCandidate ? candidate_cpu : anchor_cpu;
    if (cpu) result.cpu_seconds = *cpu * calls;
    if (side == Side::kCandidate) result.off_cpu_seconds = candidate_blocked * calls;
    // The anchor never blocks: its wall time beyond its CPU time was spent waiting for a core.
    if (side == Side::kAnchor && cpu) result.off_cpu_seconds = 0.0;
    if (waiting_share) result.waiting_seconds = *waiting_share * result.seconds;
    result.involuntary_switches = switches_per_turn;
    if (side == Side::kCandidate && ++candidate_turns_ == fail_at_candidate_turn) {
      result.failure = TurnFailure{Status::kIncorrectNumerical, "stale results"};
    }
    return result;
  }

  std::optional<double> seconds_per_call_before(Side side) const override {
    return side == Side::kCandidate ? candidate_before : std::nullopt;
  }

  std::optional<double> candidate_before;  // the candidate's calls before timing; unset: none
  std::vector<Side> sides;
  std::vector<int> calls_made;
  std::vector<int> timed_from;  // the turns run before each begin_timed_turns
  int fail_at_candidate_turn = -1;
  double untimed_seconds = 0;
  // The anchor's first `anchor_slow_turns` turns take `slow_factor` times as long (a busy moment).
  int anchor_slow_turns = 0;
  double slow_factor = 1;
  // CPU seconds per call each side reports; unset: none.
  std::optional<double> candidate_cpu, anchor_cpu;
  double candidate_blocked = 0;  // seconds per call the candidate spends blocked off the CPU
  // The share of each turn's wall time its runner waited for a core; unset: not known.
  std::optional<double> waiting_share;
  int64_t switches_per_turn = 0;  // the runner's preemptions in each turn

 private:
  double candidate_seconds_, anchor_seconds_;
  int candidate_turns_ = 0, anchor_turns_ = 0;
};

TimingOptions quick_options() {
  TimingOptions options;
  options.min_turn_seconds = 0.01;
  options.budget_seconds = 5;
  options.quiet_wait_seconds = 0;
  return options;
}

// Calibration turns come first, each side on its own; begin_timed_turns is said once, and every
// turn after it has the one count both sides run, the warm-up's and the pairs'.
TEST(PairedTiming, TimedTurnsBeginOnceAfterCalibrationWithOneCount) {
  FakeTurns turns(0.001, 0.003);
  TimingOptions options = quick_options();
  options.max_pairs = 12;
  PairedTiming paired = time_paired(turns, options, "baseline");
  ASSERT_TRUE(paired.timing);
  ASSERT_EQ(turns.timed_from.size(), 1u);
  size_t first_timed = static_cast<size_t>(turns.timed_from[0]);
  ASSERT_LT(first_timed, turns.sides.size());
  EXPECT_GE(first_timed, 4u) << "each side calibrates in at least two turns";
  size_t timed = turns.sides.size() - first_timed;
  EXPECT_EQ(timed, static_cast<size_t>(2 * (options.warmup_turns + paired.timing->pairs)));
  for (size_t i = first_timed; i < turns.sides.size(); ++i) {
    EXPECT_EQ(turns.calls_made[i], paired.timing->candidate_calls_per_turn) << "turn " << i;
  }
}

// A candidate that made calls before timing (the CPU's correctness turn) has paid for its cold
// first call: its calibration starts at the count its pace gives, without a one-call turn; the
// anchor's still begins with one. The timed turns are as before.
TEST(PairedTiming, ACandidateThatCalledBeforeTimingSkipsItsColdCall) {
  FakeTurns cold(0.001, 0.001), warm(0.001, 0.001);
  warm.candidate_before = 0.001;
  TimingOptions options = quick_options();
  options.max_pairs = 6;
  options.target_half_width = 0;  // every pair run, in both
  PairedTiming cold_paired = time_paired(cold, options, "baseline");
  PairedTiming warm_paired = time_paired(warm, options, "baseline");
  ASSERT_TRUE(cold_paired.timing && warm_paired.timing);
  ASSERT_FALSE(cold.sides.empty());
  EXPECT_EQ(cold.calls_made[0], 1);
  EXPECT_EQ(warm.sides[0], Side::kCandidate);
  ASSERT_GE(cold.calls_made.size(), 3u);
  EXPECT_GT(cold.calls_made[2], 1);
  EXPECT_EQ(warm.calls_made[0], cold.calls_made[2]) << "the count the cold one reached third";
  EXPECT_EQ(warm.timed_from[0], cold.timed_from[0] - 2) << "its cold call and a one-call turn";
  EXPECT_EQ(warm_paired.timing->candidate_calls_per_turn,
            cold_paired.timing->candidate_calls_per_turn);
  EXPECT_EQ(warm_paired.timing->pairs, cold_paired.timing->pairs);
}

// A turn of 1 ms calls with 30 ms of work around it lasts at least those 30 ms; with more work than
// the budget allows, as long as the budget allows (its least pairs of four turns each).
TEST(PairedTiming, ATurnLastsAsLongAsTheWorkAroundItWithinTheBudget) {
  FakeTurns turns(0.001, 0.001);
  turns.untimed_seconds = 0.03;
  TimingOptions options = quick_options();  // longest turn: 5 s / (4 × 10 pairs) = 125 ms
  PairedTiming paired = time_paired(turns, options, "baseline");
  ASSERT_TRUE(paired.timing);
  EXPECT_GE(paired.timing->candidate_calls_per_turn, 30);
  EXPECT_LE(paired.timing->candidate_calls_per_turn, 151);

  FakeTurns capped(0.001, 0.001);
  capped.untimed_seconds = 0.05;
  options.budget_seconds = 0.8;  // longest turn: 20 ms
  paired = time_paired(capped, options, "baseline");
  ASSERT_TRUE(paired.timing);
  EXPECT_GE(paired.timing->candidate_calls_per_turn, 20);
  EXPECT_LE(paired.timing->candidate_calls_per_turn, 25);
}

TEST(PairedTiming, SteadySidesGiveTheirRatioAndConverge) {
  FakeTurns turns(0.001, 0.002);
  PairedTiming paired = time_paired(turns, quick_options(), "baseline");
  ASSERT_TRUE(paired.timing);
  ASSERT_FALSE(paired.failure);
  const Timing& timing = *paired.timing;
  EXPECT_TRUE(timing.converged);
  EXPECT_EQ(timing.pairs, 10);
  EXPECT_NEAR(timing.speedup, 2, 1e-9);
  EXPECT_NEAR(timing.latency_seconds, 0.001, 1e-12);
  EXPECT_NEAR(timing.anchor_latency_seconds, 0.002, 1e-12);
  EXPECT_EQ(timing.anchor, "baseline");
  // Within 4x of each other: both sides run the same number of calls per turn.
  EXPECT_EQ(timing.candidate_calls_per_turn, timing.anchor_calls_per_turn);
  EXPECT_GE(timing.candidate_calls_per_turn * 0.001, 0.01);
}

TEST(PairedTiming, PairsAlternateWhichSideGoesFirst) {
  FakeTurns turns(0.001, 0.001);
  time_paired(turns, quick_options(), "baseline");
  size_t n = turns.sides.size();
  ASSERT_GE(n, 4u);
  // The last two pairs: one candidate-first, the other anchor-first.
  EXPECT_NE(turns.sides[n - 4], turns.sides[n - 2]);
  EXPECT_NE(turns.sides[n - 4], turns.sides[n - 3]);
}

// 100x apart, both sides still run the same calls per turn, as many as the slower side's turn
// allows within 4 longest turns (4 x 5 s / (4 x 10 pairs) = 500 ms: 50 calls of 10 ms).
TEST(PairedTiming, FarApartSidesShareOneCountWithinTheBudget) {
  FakeTurns turns(0.0001, 0.01);
  PairedTiming paired = time_paired(turns, quick_options(), "baseline");
  ASSERT_TRUE(paired.timing);
  EXPECT_EQ(paired.timing->candidate_calls_per_turn, paired.timing->anchor_calls_per_turn);
  EXPECT_EQ(paired.timing->anchor_calls_per_turn, 50);
  EXPECT_NEAR(paired.timing->speedup, 100, 1e-6);
}

// The anchor's calibration turns come at a slow moment (every call 30x slower than it is), as one
// adamw A/A evaluation's did: it calibrated to 1 call per turn against the candidate's 13, so all
// its timed calls were a turn's cold first call. Both sides must still get the same count, the
// one the steady side needs.
TEST(PairedTiming, ASideSlowAtCalibrationStillGetsTheSameCallsPerTurn) {
  FakeTurns turns(0.001, 0.001);
  turns.anchor_slow_turns = 12;  // all its calibration turns, whatever their number
  turns.slow_factor = 30;
  PairedTiming paired = time_paired(turns, quick_options(), "baseline");
  ASSERT_TRUE(paired.timing);
  EXPECT_EQ(paired.timing->candidate_calls_per_turn, paired.timing->anchor_calls_per_turn);
  EXPECT_GE(paired.timing->anchor_calls_per_turn * 0.001, 0.01);
  // Every turn after calibration, warm-up included, ran the common count on both sides.
  int turns_after = 2 * (quick_options().warmup_turns + paired.timing->pairs);
  ASSERT_GE(static_cast<int>(turns.calls_made.size()), turns_after);
  for (size_t i = turns.calls_made.size() - turns_after; i < turns.calls_made.size(); ++i) {
    EXPECT_EQ(turns.calls_made[i], paired.timing->candidate_calls_per_turn) << "turn " << i;
  }
}

TEST(PairedTiming, RatiosUseCpuTimeWhenBothSidesHaveIt) {
  // Wall time says the candidate is as fast as the anchor (other processes held the core during
  // the anchor's turns); CPU time says it is twice as fast.
  FakeTurns turns(0.001, 0.001);
  turns.candidate_cpu = 0.0005;
  turns.anchor_cpu = 0.001;
  PairedTiming paired = time_paired(turns, quick_options(), "baseline");
  ASSERT_TRUE(paired.timing);
  EXPECT_NEAR(paired.timing->speedup, 2, 1e-9);
  EXPECT_NEAR(paired.timing->anchor_latency_seconds, 0.001, 1e-12);
}

TEST(PairedTiming, ACandidateBlockedOffTheCpuIsChargedItsBlockedTime) {
  // The candidate's calls take 4 ms of wall time, of which it computes 0.5 ms and sleeps the rest:
  // CPU time would call it twice as fast as the anchor; it is 4x slower.
  FakeTurns turns(0.004, 0.001);
  turns.candidate_cpu = 0.0005;
  turns.candidate_blocked = 0.0035;
  turns.anchor_cpu = 0.001;
  PairedTiming paired = time_paired(turns, quick_options(), "baseline");
  ASSERT_TRUE(paired.timing);
  EXPECT_NEAR(paired.timing->speedup, 0.25, 1e-9);
  EXPECT_EQ(paired.timing->wall_clock_pairs, paired.timing->pairs);
  EXPECT_NEAR(paired.timing->candidate_off_cpu, 0.875, 1e-9);
  ASSERT_TRUE(paired.timing->load);
}

TEST(PairedTiming, ABlockedPairChargesTheBlockingButNotTheWaitsForACore) {
  // The candidate computes 0.5 ms and sleeps 3.5 ms a call; the anchor computes 1 ms a call but
  // took 3 ms of wall time, other processes holding its core. On the wall clock the sleeper would
  // read 0.75x; charged its CPU and blocked time against the anchor's CPU time it is 0.25x.
  FakeTurns turns(0.004, 0.003);
  turns.candidate_cpu = 0.0005;
  turns.candidate_blocked = 0.0035;
  turns.anchor_cpu = 0.001;
  PairedTiming paired = time_paired(turns, quick_options(), "baseline");
  ASSERT_TRUE(paired.timing);
  EXPECT_NEAR(paired.timing->speedup, 0.25, 1e-9);
  EXPECT_EQ(paired.timing->wall_clock_pairs, paired.timing->pairs);
}

TEST(PairedTiming, RatiosUseWallTimeWhenOneSideHasNoCpuTime) {
  FakeTurns turns(0.001, 0.002);
  turns.candidate_cpu = 0.0001;
  PairedTiming paired = time_paired(turns, quick_options(), "baseline");
  ASSERT_TRUE(paired.timing);
  EXPECT_NEAR(paired.timing->speedup, 2, 1e-9);
}

TEST(PairedTiming, ACandidateFailureStopsTimingWithItsStatus) {
  FakeTurns turns(0.001, 0.002);
  turns.fail_at_candidate_turn = 6;
  PairedTiming paired = time_paired(turns, quick_options(), "baseline");
  EXPECT_FALSE(paired.timing);
  ASSERT_TRUE(paired.failure);
  EXPECT_EQ(paired.failure->status, Status::kIncorrectNumerical);
  EXPECT_EQ(paired.failure->message, "stale results");
}

TEST(Roofline, TheBindingCeilingSetsThePeakTime) {
  task::RooflineCounts counts{2e9, 0, 1e9};
  Ceilings ceilings{100, 50, 10};  // 0.02 s of FMA, 0.1 s of memory
  RooflineScore score = score_roofline(counts, ceilings, 0.2);
  EXPECT_EQ(score.bound, "memory");
  EXPECT_NEAR(score.peak_seconds, 0.1, 1e-12);
  EXPECT_NEAR(score.percent_of_peak, 50, 1e-9);
  EXPECT_NEAR(score.percent_fma, 10, 1e-9);
}

TEST(Roofline, ALatencyDerivedFromAnAnchorCarriesTheSpeedupsInterval) {
  Timing timing;
  timing.speedup = 2;
  timing.speedup_low = 1.6;
  timing.speedup_high = 2.5;
  LatencyInterval latency = derive_latency(0.01, timing);
  EXPECT_NEAR(latency.seconds, 0.005, 1e-12);
  EXPECT_NEAR(latency.low, 0.004, 1e-12);
  EXPECT_NEAR(latency.high, 0.00625, 1e-12);
  ScoreInterval score = score_derived_latency({0, 0, 1e7}, {100, 100, 10}, latency);  // 1 ms peak
  EXPECT_NEAR(score.score.percent_of_peak, 20, 1e-9);
  EXPECT_NEAR(score.percent_low, 16, 1e-9);
  EXPECT_NEAR(score.percent_high, 25, 1e-9);
}

// A turn of a large workload is preempted a few times on a quiet machine (kernel threads, for
// microseconds): what marks a timing busy is the time the runners waited for their core, where
// it is known, not the count.
TEST(PairedTiming, BriefPreemptionsOfLongTurnsAreNotABusyMachine) {
  FakeTurns turns(0.001, 0.002);
  turns.switches_per_turn = 3;
  turns.waiting_share = 0.002;
  PairedTiming paired = time_paired(turns, quick_options(), "baseline");
  ASSERT_TRUE(paired.timing && paired.timing->load);
  EXPECT_FALSE(paired.timing->load->busy);
  ASSERT_TRUE(paired.timing->load->waited_for_core);
  EXPECT_NEAR(*paired.timing->load->waited_for_core, 0.002, 1e-9);
}

TEST(PairedTiming, RunnersWaitingForTheirCoreMarkTheTimingBusy) {
  FakeTurns turns(0.001, 0.002);
  turns.waiting_share = 0.3;  // another process on the timed core
  PairedTiming paired = time_paired(turns, quick_options(), "baseline");
  ASSERT_TRUE(paired.timing && paired.timing->load);
  EXPECT_TRUE(paired.timing->load->busy);
  EXPECT_NEAR(*paired.timing->load->waited_for_core, 0.3, 1e-9);
}

// Where the waits are not known (many threads), more than one preemption a pair still marks it.
TEST(PairedTiming, WithoutTheWaitsPreemptionsMarkTheTimingBusy) {
  FakeTurns turns(0.001, 0.002);
  turns.switches_per_turn = 3;
  PairedTiming paired = time_paired(turns, quick_options(), "baseline");
  ASSERT_TRUE(paired.timing && paired.timing->load);
  EXPECT_TRUE(paired.timing->load->busy);
  EXPECT_FALSE(paired.timing->load->waited_for_core);
}

double seconds_waiting_for_quiet(const CpuTicks& seen, double seen_seconds, double most_seconds) {
  auto start = std::chrono::steady_clock::now();
  wait_for_quiet({0}, most_seconds, seen, seen_seconds);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The turns before the pairs count the other cores' ticks as the wait's sample does: turns that
// cover a sample and saw the cores quiet are that sample, and no time is spent on another.
TEST(MachineLoad, TurnsThatSawQuietCoresForASampleAreTheSample) {
  const double sample = std::chrono::duration<double>(kQuietSample).count();
  CpuTicks quiet{0, 20, 0, 40};
  EXPECT_LT(seconds_waiting_for_quiet(quiet, 1.5 * sample, 3), sample / 2);
}

TEST(MachineLoad, TurnsThatSawBusyCoresAreFollowedByASample) {
  const double sample = std::chrono::duration<double>(kQuietSample).count();
  CpuTicks busy{20, 20, 0, 40};
  EXPECT_GE(seconds_waiting_for_quiet(busy, 1.5 * sample, sample), sample);
}

// Turns shorter than a sample shorten the first one, their ticks counted with its own: ticks this
// quiet decide it whatever the machine does meanwhile.
TEST(MachineLoad, TurnsShorterThanASampleShortenIt) {
  const double sample = std::chrono::duration<double>(kQuietSample).count();
  CpuTicks very_quiet{0, 1000000, 0, 2000000};
  double waited = seconds_waiting_for_quiet(very_quiet, 0.9 * sample, 3);
  EXPECT_GE(waited, 0.1 * sample);
  EXPECT_LT(waited, sample);
}

}  // namespace
}  // namespace accelopt::platform
