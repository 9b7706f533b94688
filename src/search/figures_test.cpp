// What the agents are told of a kernel's figures: the run's figure, the baseline as 1x, other
// measurements of the same pair where they disagree, and the timed values of its knobs.
#include "search/figures.h"

#include <gtest/gtest.h>

#include "search/evaluator.h"
#include "search/proposer.h"

namespace accelopt::search {
namespace {

kernel::Verdict timed(double speedup, double half_width) {
  kernel::Verdict verdict;
  kernel::Timing timing;
  timing.anchor = "baseline";
  timing.speedup = speedup;
  timing.speedup_low = speedup * (1 - half_width);
  timing.speedup_high = speedup * (1 + half_width);
  timing.latency_seconds = 0.010 / speedup;
  verdict.timing = timing;
  kernel::RooflineScore score;
  score.percent_of_peak = 10 * speedup;
  verdict.roofline = score;
  return verdict;
}

store::CandidateRecord record(int64_t id, store::CandidateKind kind, int iteration,
                              const std::string& source) {
  store::CandidateRecord candidate;
  candidate.id = id;
  candidate.kind = kind;
  candidate.iteration = iteration;
  candidate.source = source;
  return candidate;
}

std::string kernel_with_unroll(int unroll) {
  return "constexpr int UNROLL = " + std::to_string(unroll) +
         ";  // knob: 1 2 4 8\nvoid kernel() { /* unrolled */ }\n";
}

TEST(KernelFigures, TheBaselineIsOneByDefinition) {
  kernel::Verdict baseline = timed(1.06, 0.02);  // timed against itself
  RunScale scale(baseline);
  auto figures = kernel_figures(scale, baseline, true, 0, {});
  ASSERT_TRUE(figures);
  EXPECT_TRUE(figures->baseline);
  EXPECT_DOUBLE_EQ(figures->speedup, 1);
  EXPECT_EQ(figures->origin, "timed carefully at the start of the run");
}

TEST(KernelFigures, MeasurementsOfTheSamePairThatDisagreeAreKeptNamed) {
  RunScale scale(timed(1, 0.01));
  std::vector<roles::NamedSpeedup> others = {{"memory re-timing, iteration 1", 5.66, 4.70, 6.54},
                                             {"final confirmation", 8.5, 8.0, 9.0}};
  auto figures = kernel_figures(scale, timed(8.87, 0.05), false, 1, others);
  ASSERT_TRUE(figures);
  EXPECT_EQ(figures->origin, "timed paired against the baseline in iteration 1");
  ASSERT_EQ(figures->disagreeing.size(), 1u);  // the confirmation overlaps: not a disagreement
  EXPECT_EQ(figures->disagreeing[0].name, "memory re-timing, iteration 1");
  EXPECT_FALSE(kernel_figures(scale, kernel::Verdict{}, false, 1, others));  // not timed
}

// The silu run of issue 22: three disjoint figures of one pair. The most precise is the run's
// figure, the others are said beside it, and a busy measurement carries its mark.
TEST(KernelFigures, TheMostPreciseMeasurementOfThePairIsTheFigure) {
  RunScale scale(timed(1, 0.01));
  std::vector<roles::NamedSpeedup> others = {
      {"memory re-timing, iteration 1", 5.66, 4.70, 6.54},
      {"final confirmation after iteration 3", 15.25, 14.9, 15.6, true}};
  auto figures = kernel_figures(scale, timed(8.87, 0.12), false, 1, others);
  ASSERT_TRUE(figures);
  EXPECT_DOUBLE_EQ(figures->speedup, 15.25);
  EXPECT_TRUE(figures->busy);
  EXPECT_EQ(figures->origin,
            "re-timed head to head against the baseline (final confirmation after iteration 3), "
            "the most precise of its measurements");
  ASSERT_EQ(figures->disagreeing.size(), 2u);  // the search's own and the memory's, in order
  EXPECT_EQ(figures->disagreeing[0].name, "search, iteration 1");
  EXPECT_EQ(figures->disagreeing[1].name, "memory re-timing, iteration 1");
  EXPECT_DOUBLE_EQ(figures->percent_of_peak, 10 * 15.25);  // the baseline's % times the figure
}

TEST(KernelFigures, MovedTextNamesBothFigures) {
  roles::NamedSpeedup before{"memory re-timing, iteration 1", 5.66, 4.70, 6.54};
  roles::NamedSpeedup after{"final confirmation", 15.25, 13.38, 17.32};
  EXPECT_TRUE(disjoint(before, after));
  EXPECT_EQ(moved_text(before, after),
            "figures moved between measurements (5.66x → 15.25x): the machine's load changed");
  roles::NamedSpeedup overlapping{"search", 6.0, 5.5, 6.6};
  EXPECT_FALSE(disjoint(before, overlapping));
  std::vector<roles::NamedSpeedup> all = {before, after, overlapping};
  EXPECT_EQ(most_precise(all)->name, "search");  // 1.20 wide against 1.29 and 1.39
  EXPECT_EQ(most_precise({}), nullptr);
}

TEST(KernelFigures, ABusyBaselineMarksEveryDerivedFigure) {
  kernel::Verdict baseline = timed(1, 0.01);
  baseline.timing->load = kernel::MachineLoad{0.9, 0, 40, 3, true, std::nullopt};
  RunScale scale(baseline);
  EXPECT_TRUE(scale.baseline_busy());
  EXPECT_TRUE(scale.of(2, 1.9, 2.1).busy);
  EXPECT_FALSE(RunScale(timed(1, 0.01)).of(2, 1.9, 2.1).busy);
  EXPECT_EQ(busy_mark(true), " [busy]");
  EXPECT_EQ(busy_mark(false), "");
}

TEST(KernelFigures, AKernelSeesTheTimedValuesOfItsKnobs) {
  CandidateBook book;
  book.add(record(1, store::CandidateKind::kBaseline, 0, kernel_with_unroll(1)));
  book.set_verdict(1, timed(1.06, 0.01));
  book.add(record(2, store::CandidateKind::kExecutor, 1, kernel_with_unroll(4)));
  book.set_verdict(2, timed(8.87, 0.05));
  book.add(
      record(3, store::CandidateKind::kTuner, 2, "// another comment\n" + kernel_with_unroll(8)));
  kernel::Verdict failed;
  failed.status = kernel::Status::kIncorrectNumerical;
  book.set_verdict(3, failed);
  book.add(record(4, store::CandidateKind::kExecutor, 1, "void kernel() { /* other */ }\n"));
  book.set_verdict(4, timed(2, 0.05));
  book.add_measurement(2, {"memory re-timing, iteration 1", 5.66, 4.70, 6.54});
  book.add_measurement(2, {"memory re-timing, iteration 1", 5.66, 4.70, 6.54});  // resumed: once

  roles::KernelView view;
  add_kernel_figures(view, 2, book, RunScale(timed(1.06, 0.01)));
  ASSERT_TRUE(view.figures);
  EXPECT_DOUBLE_EQ(view.figures->speedup, 8.87);
  ASSERT_EQ(view.figures->disagreeing.size(), 1u);
  ASSERT_EQ(view.knob_timings.size(), 3u);  // 1 (the baseline), 4 (this kernel), 8 (failed)
  EXPECT_EQ(view.knob_timings[0].setting, "UNROLL = 1");
  EXPECT_DOUBLE_EQ(view.knob_timings[0].speedup, 1);
  EXPECT_TRUE(view.knob_timings[1].current);
  EXPECT_DOUBLE_EQ(view.knob_timings[1].speedup, 8.87);
  EXPECT_EQ(view.knob_timings[2].setting, "UNROLL = 8");
  EXPECT_EQ(view.knob_timings[2].status, "INCORRECT_NUMERICAL");
  EXPECT_DOUBLE_EQ(view.knob_timings[2].speedup, 0);

  roles::KernelView other;
  add_kernel_figures(other, 4, book, RunScale(timed(1.06, 0.01)));
  EXPECT_TRUE(other.knob_timings.empty());  // no knobs
}

}  // namespace
}  // namespace accelopt::search
