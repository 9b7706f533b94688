// A run read back for people: the view, the text of `show` and `compare`, the exports and the
// data behind the HTML report, on a run written straight into an in-memory database.
#include "report/run_view.h"

#include <gtest/gtest.h>

#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "report/export.h"
#include "report/html_report.h"
#include "report/report_test_data.h"
#include "report/run_text.h"

namespace accelopt::report {
namespace {

std::filesystem::path silu() {
  return std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/cpu/silu";
}

TEST(OneLine, HeadingsListsAndBreaksBecomeOneLine) {
  EXPECT_EQ(one_line("## Plan\nVectorize the loop.\n- keep the tail\n\n  * and  this", 200),
            "Plan: Vectorize the loop. keep the tail and this");
  EXPECT_EQ(one_line("abcdefghij", 8), "abcde...");
  EXPECT_EQ(one_line("", 8), "");
}

TEST(RunView, ReadsTheRunBack) {
  auto store = store::Store::open(":memory:");
  int64_t run = testing::write_sample_run(*store, silu());
  RunView view = load_run_view(*store, run);
  EXPECT_EQ(view.candidates.size(), 5u);
  ASSERT_EQ(view.final_beam.size(), 2u);
  EXPECT_EQ(view.final_beam.front().candidate, 5);
  ASSERT_NE(view.baseline(), nullptr);
  EXPECT_DOUBLE_EQ(view.baseline()->roofline->percent_of_peak, 10);
  EXPECT_EQ(view.memory_written.size(), 1u);
  ASSERT_EQ(view.memory_used.size(), 1u);  // the entry that was there before the run
  EXPECT_EQ(view.memory_used.front().run_id, 0);
  EXPECT_EQ(view.calls.size(), 5u);
  EXPECT_THROW(load_run_view(*store, 9), UserError);
}

TEST(RunText, ShowPrintsOneLineExcerptsAndTheLineage) {
  auto store = store::Store::open(":memory:");
  RunView view = load_run_view(*store, testing::write_sample_run(*store, silu()));
  std::ostringstream out;
  print_show(out, view);
  std::string text = out.str();
  EXPECT_NE(text.find("lineage of the best"), std::string::npos) << text;
  EXPECT_NE(text.find("#2 executor (llm:tiny: Plan: Vectorize the loop with omp simd. keep"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("##"), std::string::npos) << text;  // no Markdown heading leaks through
  EXPECT_NE(text.find("planner"), std::string::npos) << text;
}

TEST(RunText, CostTotalsPerRoleModelAndRun) {
  auto store = store::Store::open(":memory:");
  RunView view = load_run_view(*store, testing::write_sample_run(*store, silu()));
  std::ostringstream out;
  EXPECT_EQ(print_cost(out, "1", "llm", view.calls), 0);
  EXPECT_NE(out.str().find("executor"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("0.0060"), std::string::npos) << out.str();  // 5 calls of $0.0012
  std::ostringstream none;
  EXPECT_EQ(print_cost(none, "9", "llm", {}), 1);
  EXPECT_NE(none.str().find("no LLM calls recorded for run 9"), std::string::npos);
  std::ostringstream tuner;
  EXPECT_EQ(print_cost(tuner, "8", "tuner", {}), 0);
  EXPECT_EQ(tuner.str(), "run 8: no model calls (the tuner)\n");
}

TEST(RunText, CompareDiffsTheBestKernels) {
  auto store = store::Store::open(":memory:");
  int64_t first = testing::write_sample_run(*store, silu());
  int64_t second = testing::write_sample_run(*store, silu());
  std::ostringstream out;
  print_compare(out, load_run_view(*store, first), load_run_view(*store, second));
  EXPECT_NE(out.str().find("best % of peak"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("best kernels: identical"), std::string::npos) << out.str();
}

TEST(Export, FlashinferTraceRecordsAndCsv) {
  auto store = store::Store::open(":memory:");
  int64_t run = testing::write_sample_run(*store, silu());
  // Measured 2x in a moment when the machine ran slower: its own latency and % of peak (40 %,
  // not 2 × the baseline's 10 %) are not the run's.
  store->record_evaluation(testing::candidate(run, "i3/b0/p0/k0", 3, std::nullopt,
                                              store::CandidateKind::kExecutor, "// moment\n", "p"),
                           testing::passed(40, 2.0));
  RunView view = load_run_view(*store, run);
  TempDir dir;
  export_run(view, dir.path(), ExportFormat::kFlashinferTrace);
  Json definition = Json::parse(read_file(dir.path() / "definitions.jsonl"));
  EXPECT_EQ(definition["name"], "silu");
  EXPECT_TRUE(definition.contains("axes"));
  std::istringstream solutions(read_file(dir.path() / "solutions.jsonl"));
  std::istringstream traces(read_file(dir.path() / "traces.jsonl"));
  std::string line;
  int count = 0;
  double baseline_percent = 0;
  int timed = 0;
  while (std::getline(traces, line)) {
    Json trace = Json::parse(line);
    for (const char* field : {"definition", "solution", "workload", "evaluation"})
      EXPECT_TRUE(trace.contains(field)) << field;
    EXPECT_EQ(trace["workload"]["axes"]["M"], 32);
    // The run's figures, as its tables show them: latency and % of peak follow the speedup.
    const Json& performance = trace["evaluation"]["performance"];
    double speedup = performance["speedup_factor"].get<double>();
    double percent = trace["evaluation"]["accelopt"]["percent_of_peak"].get<double>();
    if (count == 0) baseline_percent = percent;
    if (speedup > 0) {
      ++timed;
      EXPECT_NEAR(performance["latency_ms"].get<double>() * speedup,
                  performance["reference_latency_ms"].get<double>(), 1e-9);
      EXPECT_NEAR(percent / baseline_percent, speedup, 1e-9);
    }
    if (++count == 3) {
      EXPECT_EQ(trace["evaluation"]["status"], "COMPILE_ERROR");
    }
  }
  EXPECT_EQ(count, 6);
  EXPECT_GE(timed, 4);
  ASSERT_TRUE(std::getline(solutions, line));
  Json solution = Json::parse(line);
  EXPECT_EQ(solution["definition"], "silu");
  EXPECT_EQ(solution["sources"][0]["path"], "kernel.cpp");
  std::string csv = read_file(dir.path() / "candidates.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "candidate,parent,iteration,kind,author,status,speedup,speedup_low,speedup_high,"
            "latency_ms,percent_of_peak,reused_from,plan");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
  // Every row at the run's figures: 1.6 × 10 % and 2 × 10 %, not their moments' 20 % and 40 %.
  EXPECT_NE(csv.find(",16.00,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",20.00,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",40.00,"), std::string::npos) << csv;
}

TEST(Export, AccelotFormatNamesTheBestKernelForBench) {
  auto store = store::Store::open(":memory:");
  RunView view = load_run_view(*store, testing::write_sample_run(*store, silu()));
  TempDir dir;
  export_run(view, dir.path(), ExportFormat::kAccelopt);
  EXPECT_EQ(read_file(dir.path() / "silu.cpp"), read_file(dir.path() / "best.cpp"));
  Json traces = Json::parse(read_file(dir.path() / "traces.json"));
  ASSERT_EQ(traces.size(), 5u);
  EXPECT_DOUBLE_EQ(traces[4]["figures"]["percent_of_peak"].get<double>(), 16.0);  // 1.6 × 10 %
  EXPECT_DOUBLE_EQ(traces[4]["verdict"]["roofline"]["percent_of_peak"].get<double>(), 20.0);
  EXPECT_TRUE(traces[2]["figures"].is_null());  // the kernel that did not compile
}

TEST(HtmlReport, DataHasAPointPerCheckpointAndADiffPerCandidate) {
  auto store = store::Store::open(":memory:");
  RunView view = load_run_view(*store, testing::write_sample_run(*store, silu()));
  Json data = runs_report_data({view});
  const Json& run = data["runs"][0];
  ASSERT_EQ(run["progress"].size(), 3u);
  // Derived from the baseline's 10 % and the speedup, not the verdict's own 20 %.
  EXPECT_DOUBLE_EQ(run["progress"][2]["percent"].get<double>(), 16);
  EXPECT_DOUBLE_EQ(run["progress"][2]["speedup"].get<double>(), 1.6);
  EXPECT_EQ(run["nodes"].size(), 5u);
  EXPECT_NE(run["nodes"][1]["diff"].get<std::string>().find("+#pragma omp simd"),
            std::string::npos);
  std::string html = runs_html({view});
  EXPECT_EQ(html.find("<script src"), std::string::npos);  // nothing fetched from elsewhere
  EXPECT_NE(html.find("echarts"), std::string::npos);
}

// The sample's verdicts were measured at different moments (#5: 1.6x at 20 % over a 10 %
// baseline); every table shows % of peak derived from the baseline's, so best % / baseline % is
// the best speedup, and a confirmation that holds 1.0 says "no significant improvement".
TEST(RunText, FiguresFollowTheSpeedupAndTheConfirmationIsShown) {
  auto store = store::Store::open(":memory:");
  int64_t run = testing::write_sample_run(*store, silu());
  {
    RunView view = load_run_view(*store, run);
    EXPECT_NEAR(view.figures(5).percent_of_peak, 16, 1e-9);
    EXPECT_NEAR(view.figures(1).speedup, 1, 1e-9);
    std::ostringstream out;
    print_show(out, view);
    EXPECT_NE(out.str().find("1.60x [1.55, 1.65]  16.0% of peak"), std::string::npos) << out.str();
    EXPECT_EQ(out.str().find("20.0% of peak"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("not confirmed"), std::string::npos) << out.str();
  }
  search::Confirmation confirmation;
  confirmation.baseline = 1;
  confirmation.measurements.push_back({5, 1, "PASSED", 1.02, 0.97, 1.07, 20, ""});
  confirmation.measurements.push_back({2, 1, "PASSED", 0.99, 0.95, 1.03, 20, ""});
  confirmation.measurements.push_back({5, 2, "PASSED", 1.01, 0.98, 1.04, 20, ""});
  search::confirm(confirmation, {5, 2}, nullptr, [](const search::Confirmation&) {});
  ASSERT_TRUE(confirmation.done);
  std::vector<store::MemoryEntryRecord> none;
  store->commit_iteration(
      {run, 2, Json{{"beam", {5, 2}}, {"confirmation", confirmation.to_json()}}, ""}, none);
  RunView view = load_run_view(*store, run);
  std::ostringstream show;
  print_show(show, view);
  EXPECT_NE(show.str().find("no significant improvement: the best, #5 1.02x [0.97, 1.07]"),
            std::string::npos)
      << show.str();
  EXPECT_NE(show.str().find("best: #5 1.02x [0.97, 1.07]  10.2% of peak"), std::string::npos)
      << show.str();
  std::ostringstream compare;
  print_compare(compare, view, view);
  EXPECT_NE(compare.str().find("10.2%"), std::string::npos) << compare.str();
  EXPECT_NE(compare.str().find("no significant improvement"), std::string::npos) << compare.str();
  Json data = runs_report_data({view});
  const Json& best = data["runs"][0]["best"];
  EXPECT_NEAR(best["percent"].get<double>() / data["runs"][0]["baseline_percent"].get<double>(),
              best["speedup"].get<double>(), 1e-9);
  EXPECT_EQ(data["runs"][0]["outcome"].get<std::string>().rfind("no significant improvement", 0),
            0u);
  std::ostringstream runs;
  print_runs(runs, *store, "ws");
  EXPECT_NE(runs.str().find("1.02x?"), std::string::npos) << runs.str();
}

}  // namespace
}  // namespace accelopt::report
