// Elitist, noise-aware selection: a beam kernel leaves only for one faster beyond the intervals.
#include "search/selection.h"

#include <gtest/gtest.h>

namespace accelopt::search {
namespace {

Scored kernel(int64_t id, double speedup, double half_width,
              const std::string& anchor = "baseline") {
  Scored scored;
  scored.candidate = id;
  kernel::Timing timing;
  timing.anchor = anchor;
  timing.speedup = speedup;
  timing.speedup_low = speedup * (1 - half_width);
  timing.speedup_high = speedup * (1 + half_width);
  timing.latency_seconds = 1.0 / speedup;
  timing.latency_low = timing.latency_seconds * (1 - half_width);
  timing.latency_high = timing.latency_seconds * (1 + half_width);
  scored.verdict.timing = timing;
  return scored;
}

std::vector<int64_t> ids(const std::vector<Scored>& beam) {
  std::vector<int64_t> result;
  for (const auto& scored : beam) result.push_back(scored.candidate);
  return result;
}

TEST(Selection, FasterBeyondNoiseUsesIntervals) {
  EXPECT_TRUE(faster_beyond_noise(kernel(1, 1.3, 0.02).verdict, kernel(2, 1.0, 0.02).verdict));
  EXPECT_FALSE(faster_beyond_noise(kernel(1, 1.03, 0.02).verdict, kernel(2, 1.0, 0.02).verdict));
  // Different anchors: latency intervals decide.
  EXPECT_TRUE(
      faster_beyond_noise(kernel(1, 2.0, 0.05, "c7").verdict, kernel(2, 1.0, 0.05).verdict));
  EXPECT_FALSE(
      faster_beyond_noise(kernel(1, 1.05, 0.05, "c7").verdict, kernel(2, 1.0, 0.05).verdict));
}

TEST(Selection, FillsFreePlacesFastestFirst) {
  auto beam = update_beam({kernel(1, 1.0, 0.02)}, {kernel(2, 1.01, 0.1), kernel(3, 1.5, 0.02)}, 3);
  EXPECT_EQ(ids(beam), (std::vector<int64_t>{3, 2, 1}));
  beam = update_beam({kernel(1, 1.0, 0.02)}, {kernel(2, 1.01, 0.1), kernel(3, 1.5, 0.02)}, 2);
  EXPECT_EQ(ids(beam), (std::vector<int64_t>{3, 1}));  // 2 is within noise of 1: 1 stays
}

TEST(Selection, AnIncumbentStaysAgainstANoisyWinner) {
  std::vector<Scored> beam = {kernel(1, 1.20, 0.02), kernel(2, 1.10, 0.02)};
  // Newcomer 3 looks faster than 2 but its interval overlaps: the elite keeps its place.
  EXPECT_EQ(ids(update_beam(beam, {kernel(3, 1.12, 0.05)}, 2)), (std::vector<int64_t>{1, 2}));
  // A clear winner replaces the slowest.
  EXPECT_EQ(ids(update_beam(beam, {kernel(4, 1.5, 0.02)}, 2)), (std::vector<int64_t>{4, 1}));
  // Offering a kernel already in the beam changes nothing.
  EXPECT_EQ(ids(update_beam(beam, {kernel(1, 1.20, 0.02)}, 2)), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(fastest(beam).candidate, 1);
}

// The bmm run of issue 22: #32 was re-timed head to head 1.07x [1.06, 1.09] faster than its
// parent #27, but the search's noisier intervals overlapped, and selection left #32 out.
TEST(Selection, AHeadToHeadMeasurementDecidesOverTwoMoments) {
  Comparisons comparisons(1);
  std::vector<Scored> beam = {kernel(27, 1.11, 0.05), kernel(40, 1.05, 0.05)};
  Scored child = kernel(32, 1.15, 0.06);
  EXPECT_FALSE(faster_beyond_noise(child, beam[0], comparisons));
  // Without the head-to-head figure the beam keeps its kernels.
  EXPECT_EQ(ids(update_beam(beam, {child}, 2, comparisons)), (std::vector<int64_t>{27, 40}));
  comparisons.add(32, 27, {"memory re-timing, iteration 2", 1.07, 1.06, 1.09});
  EXPECT_TRUE(faster_beyond_noise(child, beam[0], comparisons));
  EXPECT_FALSE(faster_beyond_noise(beam[0], child, comparisons));  // inverted: 0.93x
  // #40 is the slowest, but #32 beat #27 in one sitting: it takes #27's place.
  EXPECT_EQ(ids(update_beam(beam, {child}, 2, comparisons)), (std::vector<int64_t>{32, 40}));
}

TEST(Selection, TheMostPreciseFigureOverTheBaselineRanks) {
  Comparisons comparisons(1);
  Scored a = kernel(2, 8.87, 0.12), b = kernel(3, 10.0, 0.02);
  EXPECT_EQ(fastest({a, b}, comparisons).candidate, 3);
  comparisons.add(2, 1, {"final confirmation", 15.25, 15.0, 15.5});
  EXPECT_DOUBLE_EQ(rank_value(a, comparisons), 15.25);
  EXPECT_EQ(fastest({a, b}, comparisons).candidate, 2);
  EXPECT_TRUE(faster_beyond_noise(a, b, comparisons));
  // A less precise re-timing does not replace the search's own figure.
  Comparisons loose(1);
  loose.add(3, 1, {"memory re-timing, iteration 1", 5.0, 3.0, 7.0});
  EXPECT_DOUBLE_EQ(rank_value(b, loose), 10.0);
}

}  // namespace
}  // namespace accelopt::search
