// TimingOptions' JSON form: every field round-trips, and older JSON reads with defaults.
#include <gtest/gtest.h>

#include "platform/platform.h"

namespace accelopt::platform {
namespace {

void expect_same(const TimingOptions& a, const TimingOptions& b) {
  EXPECT_EQ(a.target_half_width, b.target_half_width);
  EXPECT_EQ(a.budget_seconds, b.budget_seconds);
  EXPECT_EQ(a.min_pairs, b.min_pairs);
  EXPECT_EQ(a.max_pairs, b.max_pairs);
  EXPECT_EQ(a.warmup_turns, b.warmup_turns);
  EXPECT_EQ(a.min_turn_seconds, b.min_turn_seconds);
  EXPECT_EQ(a.quiet_wait_seconds, b.quiet_wait_seconds);
}

TEST(TimingOptionsJson, EveryFieldRoundTrips) {
  TimingOptions options;
  options.target_half_width = 0.03;
  options.budget_seconds = 7.5;
  options.min_pairs = 11;
  options.max_pairs = 99;
  options.warmup_turns = 5;
  options.min_turn_seconds = 0.125;
  options.quiet_wait_seconds = 0.5;
  Json json = options.to_json();
  EXPECT_EQ(json.size(), 7u);
  expect_same(TimingOptions::from_json(json), options);
  expect_same(TimingOptions::from_json(Json::parse(json.dump())), options);
}

TEST(TimingOptionsJson, OlderJsonWithoutTheNewerFieldsReadsWithDefaults) {
  // What run records kept before warmup_turns and min_turn_seconds travelled.
  Json old = {
      {"target_half_width", 0.04}, {"budget_seconds", 4}, {"min_pairs", 6}, {"max_pairs", 400}};
  TimingOptions read = TimingOptions::from_json(old);
  EXPECT_EQ(read.target_half_width, 0.04);
  EXPECT_EQ(read.budget_seconds, 4);
  EXPECT_EQ(read.min_pairs, 6);
  EXPECT_EQ(read.max_pairs, 400);
  TimingOptions defaults;
  EXPECT_EQ(read.warmup_turns, defaults.warmup_turns);
  EXPECT_EQ(read.min_turn_seconds, defaults.min_turn_seconds);
  EXPECT_EQ(read.quiet_wait_seconds, defaults.quiet_wait_seconds);
  expect_same(TimingOptions::from_json(Json::object()), defaults);
}

}  // namespace
}  // namespace accelopt::platform
