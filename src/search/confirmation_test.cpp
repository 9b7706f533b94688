// Deciding the confirmed winner from head-to-head timings, and keeping it as JSON.
#include "search/confirmation.h"

#include <gtest/gtest.h>

#include <map>

namespace accelopt::search {
namespace {

Measurement timed(int64_t candidate, int64_t against, double speedup, double half_width) {
  Measurement m;
  m.candidate = candidate;
  m.against = against;
  m.speedup = speedup;
  m.speedup_low = speedup * (1 - half_width);
  m.speedup_high = speedup * (1 + half_width);
  return m;
}

// Answers from a table of (candidate, against) → measurement, counting what was asked.
struct Table {
  std::map<std::pair<int64_t, int64_t>, Measurement> answers;
  std::vector<std::pair<int64_t, int64_t>> asked;
  Measure measure() {
    return [this](int64_t candidate, int64_t against) -> std::optional<Measurement> {
      asked.emplace_back(candidate, against);
      auto found = answers.find({candidate, against});
      if (found == answers.end()) return std::nullopt;  // "stopped"
      return found->second;
    };
  }
};

const SaveConfirmation kNoSave = [](const Confirmation&) {};

TEST(ConfirmationTest, ALeaderClearOfTheOthersWinsWithoutHeadToHead) {
  Table table;
  table.answers[{5, 1}] = timed(5, 1, 1.5, 0.02);
  table.answers[{7, 1}] = timed(7, 1, 1.1, 0.02);
  Confirmation confirmation;
  confirmation.baseline = 1;
  ASSERT_TRUE(confirm(confirmation, {7, 5, 1}, one_by_one(table.measure()), kNoSave));
  EXPECT_TRUE(confirmation.done);
  EXPECT_EQ(confirmation.winner, 5);
  EXPECT_TRUE(confirmation.significant);
  EXPECT_DOUBLE_EQ(confirmation.speedup, 1.5);
  EXPECT_EQ(table.asked.size(), 2u);  // the baseline in the beam is not timed against itself
  EXPECT_EQ(confirmation.outcome(),
            "confirmed: #5 is faster than the baseline beyond noise, re-timed head to head");
}

TEST(ConfirmationTest, OverlappingKernelsMeetHeadToHead) {
  Table table;
  table.answers[{5, 1}] = timed(5, 1, 1.30, 0.05);
  table.answers[{7, 1}] = timed(7, 1, 1.25, 0.05);
  table.answers[{5, 7}] = timed(5, 7, 0.90, 0.02);  // head to head, 7 is faster beyond noise
  Confirmation confirmation;
  confirmation.baseline = 1;
  ASSERT_TRUE(confirm(confirmation, {5, 7}, one_by_one(table.measure()), kNoSave));
  EXPECT_EQ(confirmation.winner, 7);
  EXPECT_DOUBLE_EQ(confirmation.speedup, 1.25);
  EXPECT_TRUE(confirmation.tied.empty());

  table.answers[{5, 7}] = timed(5, 7, 1.0, 0.03);  // indistinguishable
  Confirmation tie;
  tie.baseline = 1;
  ASSERT_TRUE(confirm(tie, {5, 7}, one_by_one(table.measure()), kNoSave));
  EXPECT_EQ(tie.winner, 5);
  EXPECT_EQ(tie.tied, std::vector<int64_t>{7});
  EXPECT_NE(tie.outcome().find("as fast as #7 within noise"), std::string::npos);
}

// With places for every pair, the beam's first kernel meets the others in the first batch: when it
// leads, one batch decides what two did; when another leads, the second batch measures as before.
TEST(ConfirmationTest, SparePlacesTimeTheFirstKernelAgainstTheOthersInTheFirstBatch) {
  Table table;
  table.answers[{5, 1}] = timed(5, 1, 1.30, 0.05);
  table.answers[{7, 1}] = timed(7, 1, 1.25, 0.05);
  table.answers[{5, 7}] = timed(5, 7, 1.0, 0.03);
  table.answers[{7, 5}] = timed(7, 5, 1.0, 0.03);
  std::vector<size_t> batches;
  Measure one = table.measure();
  MeasureAll counted = [&](const std::vector<MeasurePair>& pairs, const MeasureTaken& taken) {
    batches.push_back(pairs.size());
    one_by_one(one)(pairs, taken);
  };
  Confirmation two_places;
  two_places.baseline = 1;
  ASSERT_TRUE(confirm(two_places, {5, 7}, counted, kNoSave, 2));
  EXPECT_EQ(batches, (std::vector<size_t>{2, 1}));  // too few places: two batches

  batches.clear();
  Confirmation three_places;
  three_places.baseline = 1;
  ASSERT_TRUE(confirm(three_places, {5, 7}, counted, kNoSave, 3));
  EXPECT_EQ(batches, std::vector<size_t>{3});  // 5 leads: its pair with 7 is already measured
  EXPECT_EQ(three_places.winner, two_places.winner);
  EXPECT_EQ(three_places.tied, two_places.tied);
  EXPECT_EQ(three_places.outcome(), two_places.outcome());

  batches.clear();
  Confirmation another_leads;
  another_leads.baseline = 1;
  ASSERT_TRUE(confirm(another_leads, {7, 5}, counted, kNoSave, 3));
  EXPECT_EQ(batches, (std::vector<size_t>{3, 1}));  // (7, 5) was a guess; 5 leads, (5, 7) is new
  EXPECT_EQ(another_leads.winner, 5);
  EXPECT_EQ(another_leads.tied, std::vector<int64_t>{7});
}

TEST(ConfirmationTest, AnIntervalHoldingOneIsNoSignificantImprovement) {
  Table table;
  table.answers[{5, 1}] = timed(5, 1, 1.02, 0.04);
  Confirmation confirmation;
  confirmation.baseline = 1;
  ASSERT_TRUE(confirm(confirmation, {5, 1}, one_by_one(table.measure()), kNoSave));
  EXPECT_EQ(confirmation.winner, 5);
  EXPECT_FALSE(confirmation.significant);
  EXPECT_EQ(confirmation.outcome().rfind("no significant improvement", 0), 0u);

  Confirmation alone;  // nothing but the baseline in the beam
  alone.baseline = 1;
  ASSERT_TRUE(confirm(alone, {1}, one_by_one(table.measure()), kNoSave));
  EXPECT_EQ(alone.winner, 1);
  EXPECT_FALSE(alone.significant);
  EXPECT_EQ(alone.outcome().rfind("no significant improvement", 0), 0u);
}

TEST(ConfirmationTest, ABeamSlowerThanTheBaselineLeavesTheBaselineTheWinner) {
  Table table;
  table.answers[{5, 1}] = timed(5, 1, 0.86, 0.02);  // fast in its moment, slower re-timed
  table.answers[{7, 1}] = timed(7, 1, 0.97, 0.04);
  Confirmation confirmation;
  confirmation.baseline = 1;
  ASSERT_TRUE(confirm(confirmation, {5, 7}, one_by_one(table.measure()), kNoSave));
  EXPECT_EQ(confirmation.winner, 1);
  EXPECT_DOUBLE_EQ(confirmation.speedup, 1);
  EXPECT_FALSE(confirmation.significant);
  EXPECT_TRUE(confirmation.tied.empty());
  EXPECT_EQ(confirmation.outcome(),
            "no significant improvement: the baseline stays the best; the beam's best, #7 0.97x "
            "[0.93, 1.01] re-timed head to head, is no different");
  table.answers[{7, 1}] = timed(7, 1, 0.95, 0.02);  // [0.93, 0.97]: slower beyond noise
  Confirmation slower;
  slower.baseline = 1;
  ASSERT_TRUE(confirm(slower, {5, 7}, one_by_one(table.measure()), kNoSave));
  EXPECT_NE(slower.outcome().find("[0.93, 0.97] re-timed head to head, is slower"),
            std::string::npos)
      << slower.outcome();
}

TEST(ConfirmationTest, AFailedRetimingIsNoWinner) {
  Table table;
  table.answers[{5, 1}] = timed(5, 1, 1.5, 0.02);
  table.answers[{5, 1}].status = "RUNTIME_ERROR";
  table.answers[{7, 1}] = timed(7, 1, 1.2, 0.02);
  Confirmation confirmation;
  confirmation.baseline = 1;
  ASSERT_TRUE(confirm(confirmation, {5, 7}, one_by_one(table.measure()), kNoSave));
  EXPECT_EQ(confirmation.winner, 7);
}

TEST(ConfirmationTest, AStoppedConfirmationKeepsItsMeasurementsAndGoesOnLater) {
  Table table;
  table.answers[{5, 1}] = timed(5, 1, 1.5, 0.02);
  Confirmation confirmation;
  confirmation.baseline = 1;
  int saved = 0;
  auto save = [&](const Confirmation&) { ++saved; };
  EXPECT_FALSE(
      confirm(confirmation, {5, 7}, one_by_one(table.measure()), save));  // 7's timing "stopped"
  EXPECT_FALSE(confirmation.done);
  EXPECT_EQ(confirmation.measurements.size(), 1u);
  EXPECT_EQ(saved, 1);
  // Kept as JSON, read back, completed: 5 is not timed again.
  Confirmation stored = Confirmation::from_json(confirmation.to_json());
  table.answers[{7, 1}] = timed(7, 1, 1.1, 0.02);
  table.asked.clear();
  ASSERT_TRUE(confirm(stored, {5, 7}, one_by_one(table.measure()), save));
  EXPECT_EQ(table.asked, (std::vector<std::pair<int64_t, int64_t>>{{7, 1}}));
  EXPECT_EQ(stored.winner, 5);
  EXPECT_EQ(Confirmation::from_json(stored.to_json()).to_json(), stored.to_json());
}

// A run of no iterations has nothing but the baseline to confirm, and says why; a confirmation cut
// by the wall-time budget says so, and both survive the JSON the checkpoint keeps.
TEST(ConfirmationTest, SaysWhenTheRunMadeNoIterationsOrWasShortened) {
  Table table;
  Confirmation none;
  none.baseline = 1;
  none.iterations = 0;
  ASSERT_TRUE(confirm(none, {1}, one_by_one(table.measure()), kNoSave));
  EXPECT_EQ(Confirmation::from_json(none.to_json()).outcome(),
            "the run made no iterations: the baseline stays");

  table.answers[{5, 1}] = timed(5, 1, 1.5, 0.02);
  Confirmation brief;
  brief.baseline = 1;
  brief.shortened = true;
  ASSERT_TRUE(confirm(brief, {5}, one_by_one(table.measure()), kNoSave));
  EXPECT_EQ(Confirmation::from_json(brief.to_json()).outcome(), brief.outcome());
  EXPECT_NE(brief.outcome().find("(shortened: re-timed within what was left of the wall-time "
                                 "budget)"),
            std::string::npos)
      << brief.outcome();
}

}  // namespace
}  // namespace accelopt::search
