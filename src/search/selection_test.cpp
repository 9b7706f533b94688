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

}  // namespace
}  // namespace accelopt::search
