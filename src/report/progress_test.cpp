#include "report/progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "search/progress.h"

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

// Once a beam is chosen, the line names its best at the kernel's one figure, as the run's end does.
TEST(ProgressLine, OnceABeamIsChosenItsBestIsNamed) {
  search::SearchEvent progress = event(search::EventKind::kIterationFinished, 3);
  progress.best_candidate = 7;
  progress.best_speedup = 11.28, progress.best_speedup_low = 11.02,
  progress.best_speedup_high = 11.55;
  progress.best_percent_of_peak = 77.8;
  std::string line = progress_line(progress);
  EXPECT_NE(line.find("best #7 11.28x [11.02, 11.55] over the baseline, 77.8% of peak"),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find("fastest measured"), std::string::npos) << line;
}

// Progress keeps the beam's best once it is set: a faster single measurement after it does not
// replace the run's figure on the line.
TEST(ProgressLine, AFasterMomentDoesNotReplaceTheBeamsBest) {
  kernel::Verdict fast;
  fast.status = kernel::Status::kPassed;
  fast.timing = kernel::Timing{};
  fast.timing->speedup = 3;
  fast.timing->speedup_low = 2.9;
  fast.timing->speedup_high = 3.1;
  search::Figures figures;
  figures.speedup = 2, figures.speedup_low = 1.9, figures.speedup_high = 2.1;
  struct Last : search::EventSink {
    void on_event(const search::SearchEvent& event) override { seen = event; }
    search::SearchEvent seen;
  } sink;
  search::Progress told(&sink, {}, 1, 2);
  told.count(fast, true);
  told.set_best(4, figures);
  fast.timing->speedup = 5;
  told.count(fast, true);
  told.emit(search::EventKind::kIterationFinished, 1);
  EXPECT_EQ(sink.seen.best_candidate, 4);
  EXPECT_DOUBLE_EQ(sink.seen.best_speedup, 2);
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
