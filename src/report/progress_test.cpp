#include "report/progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace accelopt::report {
namespace {

search::SearchEvent event(search::EventKind kind, int candidates_done) {
  search::SearchEvent result;
  result.kind = kind;
  result.run_id = 1;
  result.iteration = 1;
  result.iterations = 2;
  result.candidates_done = candidates_done;
  return result;
}

// Not on a terminal, an iteration shows its progress as it goes, one plain line per step.
TEST(ProgressPrinter, PlainLinesWithinAnIterationWhenNotOnATerminal) {
  std::ostringstream out;
  ProgressPrinter printer(out, false);
  printer.on_event(event(search::EventKind::kIterationStarted, 0));
  printer.on_event(event(search::EventKind::kCandidateFinished, 1));
  printer.on_event(event(search::EventKind::kCandidateFinished, 2));
  printer.on_event(event(search::EventKind::kIterationFinished, 2));
  std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4) << text;
  EXPECT_NE(text.find("iteration 1/2  candidates 1 done"), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
}

// The fastest kernel so far is stated as every figure is: with its interval and what it is over.
TEST(ProgressLine, TheFastestKernelHasItsIntervalAndAnchor) {
  search::SearchEvent progress = event(search::EventKind::kCandidateFinished, 3);
  progress.best_speedup = 8.87, progress.best_speedup_low = 7.91,
  progress.best_speedup_high = 10.12;
  progress.best_percent_of_peak = 35.5;
  EXPECT_NE(progress_line(progress).find("fastest measured 8.87x [7.91, 10.12] over the baseline, "
                                         "35.5% of peak"),
            std::string::npos)
      << progress_line(progress);
}

// Before anything is timed there is no fastest kernel: no 0.00x, no 0.0 % of peak.
TEST(ProgressLine, SaysNothingWasTimedBeforeAnyKernelWas) {
  search::SearchEvent progress = event(search::EventKind::kIterationStarted, 0);
  std::string line = progress_line(progress);
  EXPECT_NE(line.find("nothing timed yet"), std::string::npos) << line;
  EXPECT_EQ(line.find("0.00x"), std::string::npos) << line;
  EXPECT_EQ(line.find("% of peak"), std::string::npos) << line;
}

}  // namespace
}  // namespace accelopt::report
