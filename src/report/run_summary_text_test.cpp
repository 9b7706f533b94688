// The summary optimize and resume print when their runs end: one run, or a table of one per task.
#include "report/run_summary_text.h"

#include <gtest/gtest.h>

#include <sstream>

namespace accelopt::report {
namespace {

search::RunSummary summary(int64_t run, double baseline_percent, double speedup) {
  search::RunSummary summary;
  summary.run_id = run;
  summary.state = "finished";
  summary.iterations_done = 2;
  summary.evaluations = 17;
  summary.best_speedup = speedup;
  summary.best_speedup_low = speedup - 0.04;
  summary.best_speedup_high = speedup + 0.04;
  summary.baseline_percent_of_peak = baseline_percent;
  summary.best_percent_of_peak = baseline_percent * speedup;
  summary.confirmed = true;
  summary.significant = true;
  return summary;
}

std::string one_run(const search::RunSummary& summary) {
  std::ostringstream out;
  print_run_summary(out, summary);
  return out.str();
}

TEST(RunSummaryText, OneRunShowsBaselineBestAndWhereToLook) {
  search::RunSummary finished = summary(3, 10, 1.42);
  finished.best_candidate = 7;
  finished.best_origin = "timed paired against the baseline in iteration 2";
  finished.outcome = "confirmed: #7 is faster than the baseline beyond noise";
  EXPECT_EQ(one_run(finished),
            "\n"
            "kernel                    speedup    % of peak\n"
            "baseline                    1.00x        10.0%\n"
            "best #7        1.42x [1.38, 1.46]        14.2%\n"
            "#7's figure: timed paired against the baseline in iteration 2\n"
            "confirmed: #7 is faster than the baseline beyond noise\n"
            "run 3: finished (2 iterations, 17 evaluations); see `accelopt show 3`\n");
}

TEST(RunSummaryText, AnInterruptedRunSaysHowToContinue) {
  search::RunSummary interrupted = summary(4, 10, 1.1);
  interrupted.state = "interrupted";
  EXPECT_NE(one_run(interrupted).find("continue it with `accelopt resume 4`"), std::string::npos);
}

// A run kept outside the default workspace is shown and resumed there: the hints work as printed.
TEST(RunSummaryText, TheHintsCarryTheWorkspaceTheRunWasGiven) {
  search::RunSummary interrupted = summary(4, 10, 1.1);
  interrupted.state = "interrupted";
  std::ostringstream out;
  print_run_summary(out, interrupted, "--workspace /tmp/ws");
  EXPECT_NE(out.str().find("see `accelopt show 4 --workspace /tmp/ws`"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("continue it with `accelopt resume 4 --workspace /tmp/ws`"),
            std::string::npos)
      << out.str();
}

TEST(RunSummaryText, SeveralRunsGetARowEachAndTheGeometricMeans) {
  search::RunSummary unconfirmed = summary(2, 40, 1.0);
  unconfirmed.confirmed = false;
  search::RunSummary insignificant = summary(3, 10, 1.0);
  insignificant.significant = false;
  search::RunSummary failed = summary(4, 0, 1.0);  // no % of peak: left out of the means
  failed.state = "failed: the baseline did not pass";
  std::ostringstream out;
  print_run_summaries(out, {{"silu", summary(1, 10, 4.0)},
                            {"axpy", unconfirmed},
                            {"softmax", insignificant},
                            {"gemm", failed}});
  // The means: (10 · 40 · 10)^(1/3) = 15.9 % before, (40 · 40 · 10)^(1/3) = 25.2 % after.
  EXPECT_EQ(out.str(),
            "\n"
            "task                       run baseline %     best %       speedup [95% CI]  state\n"
            "silu                         1      10.0%      40.0%     4.00x [3.96, 4.04]  "
            "finished\n"
            "axpy                         2      40.0%      40.0%     1.00x [0.96, 1.04]  "
            "finished, not confirmed\n"
            "softmax                      3      10.0%      10.0%     1.00x [0.96, 1.04]  "
            "finished, no significant improvement\n"
            "gemm                         4       0.0%       0.0%     1.00x [0.96, 1.04]  "
            "failed: the baseline did not pass\n"
            "geometric mean                      15.9%      25.2%                  1.59x\n");
}

TEST(RunSummaryText, TheHeaderCallsNoRowConfirmed) {
  search::RunSummary unconfirmed = summary(2, 40, 1.0);
  unconfirmed.confirmed = false;
  std::ostringstream out;
  print_run_summaries(out, {{"axpy", unconfirmed}});
  std::string header = out.str().substr(1, out.str().find('\n', 1));
  EXPECT_EQ(header.find("confirmed"), std::string::npos) << header;
  EXPECT_NE(out.str().find("not confirmed"), std::string::npos) << out.str();
}

TEST(RunSummaryText, NoMeansWithoutAPercentOfPeak) {
  std::ostringstream out;
  print_run_summaries(out, {{"gemm", summary(1, 0, 1.0)}});
  EXPECT_EQ(out.str().find("geometric mean"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace accelopt::report
