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

}  // namespace
}  // namespace accelopt::report
