// The closing round's bookkeeping on a measurement the test scripts: which sources it times and in
// which order, that identical sources share one measurement, what a resumed or re-run round keeps,
// and how rounds combine.
#include "study/closing_round.h"

#include <gtest/gtest.h>

#include <cmath>

namespace accelopt::study {
namespace {

ClosingCell best(const std::string& key, const std::string& task, const std::string& hash,
                 bool baseline = false) {
  ClosingCell cell;
  cell.key = key;
  cell.task = task;
  cell.source = "// source " + hash;
  cell.source_hash = hash;
  cell.baseline = baseline;
  return cell;
}

// Answers each turn with a speedup no other turn gets (1.0, 1.1, 1.2, ...), and records the turns.
struct ScriptedMeasure {
  std::vector<std::string> order;  // "task:hash:round"
  int stop_after = -1;             // stop (as Ctrl-C does) at this turn; -1: never
  std::optional<RoundMeasurement> operator()(const ClosingTurn& turn) {
    if (static_cast<int>(order.size()) == stop_after) return std::nullopt;
    order.push_back(turn.cell->task + ":" + turn.cell->source_hash + ":" +
                    std::to_string(turn.round));
    double speedup = 1.0 + 0.1 * static_cast<double>(order.size() - 1);
    return RoundMeasurement{speedup, speedup * 0.95, speedup * 1.05, false, ""};
  }
};

std::vector<ClosingCell> grid() {
  return {best("a/silu/seed1/cold", "silu", "A"), best("b/silu/seed1/cold", "silu", "A"),
          best("a/silu/seed2/cold", "silu", "B"), best("b/silu/seed2/cold", "silu", "X", true),
          best("a/axpy/seed1/cold", "axpy", "C")};
}

// Two cells with the same best share one measurement per round, so their figures are equal by
// construction; the baseline is 1x exactly and never timed; each round rotates the order.
TEST(ClosingRound, IdenticalSourcesShareOneMeasurementAndTheBaselineIsOneExactly) {
  Json state;
  ScriptedMeasure script;
  int saves = 0;
  ClosingProgress progress = run_closing_round(
      state, grid(), 3, [&](const ClosingTurn& turn) { return script(turn); },
      [&](const Json&) { ++saves; });
  EXPECT_FALSE(progress.stopped);
  EXPECT_EQ(progress.taken, 9);  // silu: A and B, axpy: C; 3 rounds each
  EXPECT_EQ(script.order,
            (std::vector<std::string>{"silu:A:0", "silu:B:0", "silu:B:1", "silu:A:1", "silu:A:2",
                                      "silu:B:2", "axpy:C:0", "axpy:C:1", "axpy:C:2"}));
  EXPECT_GE(saves, 9);

  auto first = stored_closing_figure(state, "a/silu/seed1/cold", "silu", "A");
  auto second = stored_closing_figure(state, "b/silu/seed1/cold", "silu", "A");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->speedup, second->speedup);
  EXPECT_EQ(first->low, second->low);
  EXPECT_EQ(first->high, second->high);
  EXPECT_NEAR(first->speedup, std::cbrt(1.0 * 1.3 * 1.4), 1e-12);  // turns 0, 3 and 4
  auto other = stored_closing_figure(state, "a/silu/seed2/cold", "silu", "B");
  ASSERT_TRUE(other);
  EXPECT_NE(other->speedup, first->speedup);
  auto baseline = stored_closing_figure(state, "b/silu/seed2/cold", "silu", "X");
  ASSERT_TRUE(baseline);
  EXPECT_TRUE(baseline->baseline);
  EXPECT_EQ(baseline->speedup, 1.0);
  EXPECT_EQ(baseline->low, 1.0);
  EXPECT_EQ(baseline->high, 1.0);
  // A cell whose best is now another kernel has no closing figure until that one is timed.
  EXPECT_FALSE(stored_closing_figure(state, "a/silu/seed1/cold", "silu", "B"));
}

// Stopped after 4 turns (Ctrl-C), the round resumes at the fifth; run again when complete, it
// times nothing; skipped, it gives no figure.
TEST(ClosingRound, AnInterruptedRoundResumesAndACompleteOneIsKept) {
  Json state;
  ScriptedMeasure interrupted;
  interrupted.stop_after = 4;
  auto save = [](const Json&) {};
  ClosingProgress first = run_closing_round(
      state, grid(), 3, [&](const ClosingTurn& turn) { return interrupted(turn); }, save);
  EXPECT_TRUE(first.stopped);
  EXPECT_EQ(first.taken, 4);
  EXPECT_FALSE(stored_closing_figure(state, "a/silu/seed1/cold", "silu", "A"));

  ScriptedMeasure resumed;
  ClosingProgress second = run_closing_round(
      state, grid(), 3, [&](const ClosingTurn& turn) { return resumed(turn); }, save);
  EXPECT_FALSE(second.stopped);
  EXPECT_EQ(second.kept, 4);
  EXPECT_EQ(second.taken, 5);
  EXPECT_EQ(resumed.order.front(), "silu:A:2");
  EXPECT_TRUE(stored_closing_figure(state, "a/silu/seed1/cold", "silu", "A"));

  ScriptedMeasure again;
  ClosingProgress third = run_closing_round(
      state, grid(), 3, [&](const ClosingTurn& turn) { return again(turn); }, save);
  EXPECT_EQ(third.taken, 0);
  EXPECT_EQ(third.kept, 9);

  state["skipped"] = true;
  EXPECT_FALSE(stored_closing_figure(state, "a/silu/seed1/cold", "silu", "A"));
}

// A cell that ended with another best changes its task's set of sources: the task is timed again
// from its first round, so that its cells stay timed together; another task's rounds are kept.
TEST(ClosingRound, AChangedBestTimesItsTaskAgain) {
  Json state;
  ScriptedMeasure script;
  auto save = [](const Json&) {};
  run_closing_round(
      state, grid(), 3, [&](const ClosingTurn& turn) { return script(turn); }, save);
  std::vector<ClosingCell> changed = grid();
  changed[2].source_hash = "D";
  ScriptedMeasure again;
  ClosingProgress progress = run_closing_round(
      state, changed, 3, [&](const ClosingTurn& turn) { return again(turn); }, save);
  EXPECT_EQ(progress.taken, 6);
  EXPECT_EQ(progress.kept, 3);
  EXPECT_EQ(again.order.front(), "silu:A:0");
  EXPECT_TRUE(stored_closing_figure(state, "a/silu/seed2/cold", "silu", "D"));
  EXPECT_FALSE(stored_closing_figure(state, "a/silu/seed2/cold", "silu", "B"));
}

// The geometric mean of the rounds; the interval is the wider of the geometric means of the
// rounds' own intervals and the spread of the rounds; a busy round marks the figure; a failed
// round, or too few rounds, give none; a round the machine was too busy to judge gives no speedup.
TEST(ClosingRound, RoundsCombineIntoTheirGeometricMeanWithTheWiderInterval) {
  std::vector<RoundMeasurement> rounds = {
      {2.0, 1.9, 2.1, false, ""}, {2.0, 1.9, 2.1, false, ""}, {4.0, 3.8, 4.2, true, ""}};
  auto figure = combine_rounds(rounds, 3);
  ASSERT_TRUE(figure);
  EXPECT_NEAR(figure->speedup, std::cbrt(16.0), 1e-12);
  // The rounds disagree beyond their own intervals: the interval spans them.
  EXPECT_DOUBLE_EQ(figure->low, 2.0);
  EXPECT_DOUBLE_EQ(figure->high, 4.0);
  EXPECT_TRUE(figure->busy);
  EXPECT_EQ(figure->rounds, 3);

  EXPECT_FALSE(combine_rounds({rounds[0], rounds[1]}, 3));
  std::vector<RoundMeasurement> failed = rounds;
  failed[1].failed = "INCORRECT_NUMERICAL";
  EXPECT_FALSE(combine_rounds(failed, 3));
  std::vector<RoundMeasurement> unjudged = rounds;
  unjudged[2] = RoundMeasurement{0, 0, 0, true, ""};
  auto two = combine_rounds(unjudged, 3);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->rounds, 2);
  EXPECT_NEAR(two->speedup, 2.0, 1e-12);
  EXPECT_NEAR(two->low, 1.9, 1e-12);  // rounds that agree: their own intervals
  EXPECT_NEAR(two->high, 2.1, 1e-12);
  EXPECT_TRUE(two->busy);
}

}  // namespace
}  // namespace accelopt::study
