#include "platform/paired_turns.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace accelopt::platform {
namespace {

TEST(PairedTurns, AFasterCandidateHasItsSpeedupIntervalAndLatency) {
  PairedTurns turns;
  for (int pair = 0; pair < 30; ++pair) {
    double noise = 1 + 0.01 * (pair % 3);  // a slow phase slows both sides of a pair alike
    turns.candidate_seconds.push_back(1e-3 * noise);
    turns.anchor_seconds.push_back(4e-3 * noise);
  }
  turns.candidate_calls_per_turn = 20;
  Timing timing = timing_from_turns(turns, "parent", 0.02);
  EXPECT_EQ(timing.anchor, "parent");
  EXPECT_EQ(timing.pairs, 30);
  EXPECT_DOUBLE_EQ(timing.speedup, 4.0);  // the paired ratios cancel the shared noise
  EXPECT_LE(timing.speedup_low, 4.0);
  EXPECT_GE(timing.speedup_high, 4.0);
  EXPECT_TRUE(timing.converged);
  EXPECT_NEAR(timing.latency_seconds, 1.01e-3, 1e-9);
  EXPECT_EQ(timing.candidate_calls_per_turn, 20);
  EXPECT_EQ(timing.ratios.size(), 30u);
}

TEST(PairedTurns, AWideIntervalIsNotConverged) {
  PairedTurns turns;
  for (int pair = 0; pair < 10; ++pair) {
    turns.candidate_seconds.push_back(pair % 2 ? 1.0 : 2.0);
    turns.anchor_seconds.push_back(1.0);
  }
  EXPECT_FALSE(timing_from_turns(turns, "baseline", 0.02).converged);
}

TEST(PairedTurns, MismatchedEmptyOrNonPositiveSamplesAreOurBug) {
  PairedTurns turns;
  EXPECT_THROW(timing_from_turns(turns, "baseline", 0.02), InternalError);
  turns.candidate_seconds = {1.0, 1.0};
  turns.anchor_seconds = {1.0};
  EXPECT_THROW(timing_from_turns(turns, "baseline", 0.02), InternalError);
  turns.anchor_seconds = {1.0, 0.0};
  EXPECT_THROW(timing_from_turns(turns, "baseline", 0.02), InternalError);
}

}  // namespace
}  // namespace accelopt::platform
