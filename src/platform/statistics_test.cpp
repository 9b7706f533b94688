#include "platform/statistics.h"

#include <gtest/gtest.h>

namespace accelopt::platform {
namespace {

TEST(Statistics, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(Statistics, IntervalHoldsTheMedianAndNarrowsWithMoreSamples) {
  std::vector<double> few, many;
  for (int i = 0; i < 10; ++i) few.push_back(1 + 0.01 * (i % 5));
  for (int i = 0; i < 200; ++i) many.push_back(1 + 0.01 * (i % 5));
  MedianInterval a = median_interval(few), b = median_interval(many);
  EXPECT_LE(a.low, a.median);
  EXPECT_GE(a.high, a.median);
  EXPECT_LE(b.high - b.low, a.high - a.low);
}

TEST(Statistics, OutliersDoNotMoveTheMedian) {
  std::vector<double> values(21, 1.0);
  values[0] = 50;  // a slow phase of the machine
  values[1] = 0.001;
  EXPECT_DOUBLE_EQ(median_interval(values).median, 1.0);
}

TEST(Statistics, IndependentSeriesKeepsTheIndependentInterval) {
  std::vector<double> values;
  for (int i = 0; i < 100; ++i) values.push_back(1 + 0.01 * ((i * 37) % 11));
  EXPECT_LT(variance_inflation(values), 1.6);
}

TEST(Statistics, SlowPhasesWidenTheInterval) {
  // Runs of ten alike samples: a machine's slow phases last longer than one pair.
  std::vector<double> phased;
  for (int i = 0; i < 100; ++i) phased.push_back((i / 10) % 2 ? 1.1 + 0.001 * i : 0.9 + 0.001 * i);
  EXPECT_GT(variance_inflation(phased), 4);
  MedianInterval independent = median_interval(phased), series = median_interval_series(phased);
  EXPECT_DOUBLE_EQ(series.median, independent.median);
  EXPECT_GT(series.high - series.low, independent.high - independent.low);
  EXPECT_LE(series.low, series.median);
  EXPECT_GE(series.high, series.median);
}

}  // namespace
}  // namespace accelopt::platform
