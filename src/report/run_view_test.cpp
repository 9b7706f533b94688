// A run read back for people: the view, the text of `show` and `compare`, the exports and the
// data behind the HTML report, on a run written straight into an in-memory database.
#include "report/run_view.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <regex>
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

// A cut falls between words (a memory line in `show` ended "vector e..."), and never inside a
// character.
TEST(OneLine, ACutFallsBetweenWords) {
  EXPECT_EQ(one_line("a scalar exp is not faster than a vector exp", 32),
            "a scalar exp is not faster...");
  EXPECT_EQ(one_line("pipelines \u00e9\u00e9\u00e9\u00e9", 15), "pipelines...");
  EXPECT_EQ(one_line("\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9", 8), "\u00e9\u00e9...");
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
  EXPECT_NE(text.find("#2 executor (llm:tiny: Plan: Vectorize the loop with omp"),
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

void expect_at_most_100_columns(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
}

std::string first_line(const std::string& text, const std::string& containing) {
  size_t at = text.find(containing);
  if (at == std::string::npos) return "";
  size_t start = text.rfind('\n', at);
  start = start == std::string::npos ? 0 : start + 1;
  return text.substr(start, text.find('\n', at) - start);
}

// A run of another task: one baseline, checkpointed, finished.
int64_t write_matmul_run(store::Store& store) {
  search::RunSettings settings;
  settings.task = "matmul";
  settings.workload = "small";
  settings.agents = "tuner";
  settings.search = search::preset("quick");
  int64_t run = store.create_run(settings.to_json());
  store::CandidateRecord baseline = testing::candidate(
      run, "baseline", 0, std::nullopt, store::CandidateKind::kBaseline, "void kernel() {}\n", "");
  baseline.task = "matmul";
  int64_t id = store.record_evaluation(baseline, testing::passed(30, 1.0));
  std::vector<store::MemoryEntryRecord> none;
  store.commit_iteration({run, 0, Json{{"beam", {id}}, {"baseline", id}}, ""}, none);
  store.set_run_state(run, "finished");
  return run;
}

TEST(RunText, RunsShowAndCompareNamePercentOfPeakAndFitOneHundredColumns) {
  auto store = store::Store::open(":memory:");
  int64_t first = testing::write_sample_run(*store, silu());
  int64_t second = testing::write_sample_run(*store, silu());
  store->set_run_state(second, "failed: the planner's server answered 503 three times running");
  write_matmul_run(*store);
  std::ostringstream runs, show, compare;
  print_runs(runs, *store, ":memory:");
  print_show(show, load_run_view(*store, first));
  print_compare(compare, load_run_view(*store, first), load_run_view(*store, second));
  EXPECT_NE(first_line(runs.str(), "run").find("% peak"), std::string::npos) << runs.str();
  EXPECT_NE(runs.str().find("1.00x   30.0"), std::string::npos) << runs.str();  // matmul's
  EXPECT_NE(runs.str().find("answered 503"), std::string::npos) << runs.str();
  EXPECT_NE(first_line(show.str(), "iteration").find("% of peak"), std::string::npos);
  EXPECT_NE(first_line(show.str(), "speedup [95% CI]").find("% of peak"), std::string::npos)
      << show.str();
  EXPECT_NE(compare.str().find("best % of peak"), std::string::npos) << compare.str();
  expect_at_most_100_columns(runs.str());
  expect_at_most_100_columns(show.str());
  expect_at_most_100_columns(compare.str());
}

TEST(RunText, CompareOfDifferentTasksSaysSoAndDoesNotDiff) {
  auto store = store::Store::open(":memory:");
  int64_t silu_run = testing::write_sample_run(*store, silu());
  int64_t matmul_run = write_matmul_run(*store);
  std::ostringstream out;
  print_compare(out, load_run_view(*store, silu_run), load_run_view(*store, matmul_run));
  EXPECT_NE(out.str().find("different tasks (silu and matmul)"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("best kernels: diff"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("@@"), std::string::npos) << out.str();
}

TEST(Export, RefusesAFolderHoldingAnotherRunsExportUnlessForced) {
  auto store = store::Store::open(":memory:");
  int64_t first = testing::write_sample_run(*store, silu());
  int64_t second = testing::write_sample_run(*store, silu());
  TempDir out("accelopt-export-test");
  export_run(load_run_view(*store, first), out.path(), ExportFormat::kAccelopt, "ws");
  // The same run again: its own export, rewritten.
  EXPECT_NO_THROW(
      export_run(load_run_view(*store, first), out.path(), ExportFormat::kAccelopt, "ws"));
  try {
    export_run(load_run_view(*store, second), out.path(), ExportFormat::kFlashinferTrace, "ws");
    ADD_FAILURE() << "exported run 2 over run 1's export";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("run 1"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("--force"), std::string::npos) << error.what();
  }
  EXPECT_NO_THROW(export_run(load_run_view(*store, second), out.path(),
                             ExportFormat::kFlashinferTrace, "ws", ExportOverwrite::kForce));
}

TEST(HtmlReport, BenchRowsWithoutAFigureHaveNone) {
  kernel::Verdict rejected =
      testing::failed(kernel::Status::kRejectedSource, "#include <dnnl.h> is not allowed");
  Json rows = Json::array({{{"task", "matmul"},
                            {"kernel", "onednn"},
                            {"library", true},
                            {"verdict", rejected.to_json()}}});
  std::string html = bench_html({{"bench.json", rows}});
  EXPECT_NE(html.find("\"latency_ms\":null"), std::string::npos);
  EXPECT_NE(html.find("\"percent\":null"), std::string::npos);
  EXPECT_EQ(html.find("fmt(r.latency_ms, 4)"), std::string::npos);  // significant digits instead
}

TEST(Export, AccelotFormatNamesTheBestKernelForBench) {
  auto store = store::Store::open(":memory:");
  RunView view = load_run_view(*store, testing::write_sample_run(*store, silu()));
  TempDir dir;
  export_run(view, dir.path(), ExportFormat::kAccelopt, "ws");
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

// The roofline's ceilings are those the run's baseline was scored against, recovered from its
// verdict's counts and shares of its latency; every kernel's GFLOP/s is its counted work over the
// run's latency for it (the baseline's over its speedup), so its height over the task's peak is its
// % of peak.
TEST(HtmlReport, RooflineDataComesFromTheStoredScores) {
  auto store = store::Store::open(":memory:");
  RunView view = load_run_view(*store, testing::write_sample_run(*store, silu()));
  Json data = runs_report_data({view});
  const Json& run = data["runs"][0];
  ASSERT_TRUE(run["roofline"].is_object()) << run.dump();
  const Json& roofline = run["roofline"];
  EXPECT_DOUBLE_EQ(roofline["flops"].get<double>(), 3 * 2048);
  EXPECT_DOUBLE_EQ(roofline["bytes"].get<double>(), 8 * 2048);
  EXPECT_EQ(roofline["bound"], "memory");
  std::map<std::string, double> ceilings;
  for (const Json& ceiling : roofline["ceilings"])
    ceilings[ceiling["bound"].get<std::string>()] = ceiling["value"].get<double>();
  EXPECT_EQ(ceilings.size(), 2u);  // no multiply-adds counted: no FMA ceiling to recover
  EXPECT_NEAR(ceilings["memory"], 0.16384, 1e-9);
  EXPECT_NEAR(ceilings["vector"], 0.24576, 1e-9);
  // The task's peak: 6144 FLOP in 0.1 ms.
  EXPECT_NEAR(roofline["peak_gflops"].get<double>(), 0.06144, 1e-9);
  int points = 0;
  for (const Json& node : run["nodes"]) {
    if (!node["passed"].get<bool>()) {
      EXPECT_TRUE(node["roofline"].is_null()) << node.dump();
      continue;
    }
    ++points;
    double gflops = node["roofline"]["gflops"][0].get<double>();
    EXPECT_NEAR(node["roofline"]["intensity"].get<double>(), 0.375, 1e-12);
    EXPECT_NEAR(100 * gflops / 0.06144, node["percent"][0].get<double>(), 1e-6) << node.dump();
  }
  EXPECT_EQ(points, 4);  // the baseline, #2, #4 and #5
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
  EXPECT_NE(show.str().find("no significant improvement: the best, #5, re-timed head to head "
                            "against the baseline, is no different from it"),
            std::string::npos)
      << show.str();
  // The best's figure is its one figure, the most precise of its measurements: the search's
  // 1.60x [1.55, 1.65] (±3 %) over the confirmation's 1.02x [0.97, 1.07] (±5 %), which is listed.
  EXPECT_NE(show.str().find("best: #5 1.60x [1.55, 1.65]  16.0% of peak\n"
                            "    its figure: timed paired against the baseline in iteration"),
            std::string::npos)
      << show.str();
  EXPECT_NE(show.str().find("final confirmation: 1.02x [0.97, 1.07]"), std::string::npos)
      << show.str();
  std::ostringstream compare;
  print_compare(compare, view, view);
  EXPECT_NE(compare.str().find("16.0%"), std::string::npos) << compare.str();
  EXPECT_NE(compare.str().find("no significant improvement"), std::string::npos) << compare.str();
  Json data = runs_report_data({view});
  const Json& best = data["runs"][0]["best"];
  EXPECT_NEAR(best["percent"].get<double>() / data["runs"][0]["baseline_percent"].get<double>(),
              best["speedup"].get<double>(), 1e-9);
  EXPECT_EQ(data["runs"][0]["outcome"].get<std::string>().rfind("no significant improvement", 0),
            0u);
  std::ostringstream runs;
  print_runs(runs, *store, "ws");
  EXPECT_NE(runs.str().find("1.60x?"), std::string::npos) << runs.str();
  EXPECT_NE(runs.str().find("?: not confirmed"), std::string::npos) << runs.str();  // the legend
  // Export names the same kernel at the same figure.
  TempDir dir;
  export_run(view, dir.path(), ExportFormat::kAccelopt, "ws");
  Json exported = Json::parse(read_file(dir.path() / "run.json"));
  EXPECT_EQ(exported["winner"]["candidate"], 5);
  EXPECT_DOUBLE_EQ(exported["winner"]["figures"]["speedup"].get<double>(), 1.6);
  EXPECT_TRUE(exported["winner"]["confirmed"].get<bool>());  // the confirmation chose it
}

// The report, `show` and the run's budget count the same evaluations: not the baseline's, not a
// reused one (Store::evaluation_count).
TEST(HtmlReport, EvaluationsAreCountedAsShowAndTheBudgetCountThem) {
  auto store = store::Store::open(":memory:");
  int64_t id = testing::write_sample_run(*store, silu());
  RunView view = load_run_view(*store, id);
  Json run = runs_report_data({view})["runs"][0];
  EXPECT_EQ(run["evaluations"].get<int64_t>(), store->evaluation_count(id));
  EXPECT_EQ(run["evaluations"].get<int64_t>(), 4);
  EXPECT_EQ(run["progress"][0]["evaluations"].get<int64_t>(), 0);  // the baseline alone
  EXPECT_EQ(run["progress"].back()["evaluations"].get<int64_t>(), 4);
  std::ostringstream show;
  print_show(show, view);
  EXPECT_NE(show.str().find("evaluations 4"), std::string::npos) << show.str();
}

using Rgb = std::array<double, 3>;

Rgb linear_rgb(const std::string& hex) {
  Rgb rgb;
  for (int channel = 0; channel < 3; ++channel) {
    double value = std::stoi(hex.substr(1 + 2 * channel, 2), nullptr, 16) / 255.0;
    rgb[channel] = value <= 0.04045 ? value / 12.92 : std::pow((value + 0.055) / 1.055, 2.4);
  }
  return rgb;
}

Rgb lab(const Rgb& rgb) {
  auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116; };
  double x = (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.95047;
  double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
  double z = (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.08883;
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

// CIELAB of `hex` as seen through `vision` (a linear-RGB matrix).
Rgb seen(const std::string& hex, const std::array<Rgb, 3>& vision) {
  Rgb rgb = linear_rgb(hex), out;
  for (int row = 0; row < 3; ++row) {
    double value = vision[row][0] * rgb[0] + vision[row][1] * rgb[1] + vision[row][2] * rgb[2];
    out[row] = std::clamp(value, 0.0, 1.0);
  }
  return lab(out);
}

// Each pair of status colours stays clearly apart (CIE76 distance of 15 or more) in normal vision
// and in simulated protanopia, deuteranopia and tritanopia (Machado et al. 2009, severity 1).
TEST(HtmlReport, StatusColoursAreToldApartWithAnyColourVision) {
  auto store = store::Store::open(":memory:");
  std::string html = runs_html({load_run_view(*store, testing::write_sample_run(*store, silu()))});
  size_t start = html.find("const colors = {");
  ASSERT_NE(start, std::string::npos);
  std::string block = html.substr(start, html.find("};", start) - start);
  std::map<std::string, std::string> colours;
  std::regex entry(R"(([A-Z_]+): '(#[0-9A-Fa-f]{6})')");
  for (std::sregex_iterator it(block.begin(), block.end(), entry), end; it != end; ++it)
    colours[(*it)[1]] = (*it)[2];
  // Every status has a colour of its own but EVALUATION_FAILED, drawn in the unknown grey.
  ASSERT_EQ(colours.size(), 9u) << block;
  EXPECT_TRUE(colours.count("MACHINE_BUSY")) << block;
  const std::map<std::string, std::array<Rgb, 3>> visions{
      {"normal", {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
      {"protanopia",
       {{{0.152286, 1.052583, -0.204868},
         {0.114503, 0.786281, 0.099216},
         {-0.003882, -0.048116, 1.051998}}}},
      {"deuteranopia",
       {{{0.367322, 0.860646, -0.227968},
         {0.280085, 0.672501, 0.047413},
         {-0.011820, 0.042940, 0.968881}}}},
      {"tritanopia",
       {{{1.255528, -0.076749, -0.178779},
         {-0.078411, 0.930809, 0.147602},
         {0.004733, 0.691367, 0.303900}}}}};
  for (const auto& [vision, matrix] : visions) {
    for (auto a = colours.begin(); a != colours.end(); ++a) {
      for (auto b = std::next(a); b != colours.end(); ++b) {
        Rgb x = seen(a->second, matrix), y = seen(b->second, matrix);
        double distance = std::hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]);
        EXPECT_GE(distance, 15) << a->first << " and " << b->first << " in " << vision;
      }
    }
  }
}

// The side panel's figures: the run's derived % of peak with its interval, one per candidate.
TEST(HtmlReport, NodesCarryTheRunsPercentOfPeakWithItsInterval) {
  auto store = store::Store::open(":memory:");
  Json run = runs_report_data(
      {load_run_view(*store, testing::write_sample_run(*store, silu()))})["runs"][0];
  const Json& best = run["nodes"][4];  // #5: 1.6x [1.552, 1.648] over a 10 % baseline
  ASSERT_EQ(best["percent"].size(), 3u) << best.dump();
  EXPECT_DOUBLE_EQ(best["percent"][0].get<double>(), 16);
  EXPECT_NEAR(best["percent"][1].get<double>(), 15.52, 1e-9);
  EXPECT_NEAR(best["percent"][2].get<double>(), 16.48, 1e-9);
  EXPECT_FALSE(best.contains("measured"));  // the moment's own % of peak stays in the trace
}

size_t count(const std::string& text, const std::string& what) {
  size_t found = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++found;
  return found;
}

// Two measurements of the same pair (kernel against the baseline) whose 95 % intervals are
// disjoint are both said, named and dated, under the run's figure; one that agrees says nothing.
TEST(RunText, ShowListsMeasurementsThatDisagreeNamedAndDated) {
  auto store = store::Store::open(":memory:");
  int64_t run = testing::write_sample_run(*store, silu());
  testing::end_sample_run_with_retimings(*store, run);
  RunView view = load_run_view(*store, run);
  auto five = view.kernel_figures(5);
  ASSERT_TRUE(five);
  EXPECT_DOUBLE_EQ(five->speedup, view.figures(5).speedup);  // the run's derived figure
  ASSERT_EQ(five->disagreeing.size(), 2u);
  EXPECT_EQ(five->disagreeing[0].name, "memory re-timing, iteration 2");
  EXPECT_EQ(five->disagreeing[1].name, "final confirmation after iteration 2");
  ASSERT_EQ(view.retimings(2).size(), 2u);  // its memory entry of iteration 1 and the confirmation
  EXPECT_TRUE(view.kernel_figures(2)->disagreeing.empty());
  EXPECT_TRUE(view.kernel_figures(1)->disagreeing.empty());  // the baseline: 1x by definition
  EXPECT_TRUE(moved_figures(view, 2).empty());

  std::ostringstream out;
  print_show(out, view);
  std::string text = out.str();
  // #5 is in the final beam, not in the winner's (#2's) lineage: one row, one note.
  EXPECT_EQ(count(text, "figures moved between measurements"), 1u) << text;
  size_t row = text.find("1.60x [1.55, 1.65]  16.0% of peak");
  size_t note = text.find(
      "! figures moved between measurements (1.60x → 1.02x): the machine's load changed:\n"
      "        search, iteration 2: 1.60x [1.55, 1.65] (the run's figure);");
  ASSERT_NE(note, std::string::npos) << text;
  EXPECT_LT(row, note) << text;
  EXPECT_EQ(text.find("#2 executor", row), text.find("#2 executor", note)) << text;  // under #5
  EXPECT_NE(text.find("memory re-timing, iteration 2: 1.30x [1.25, 1.35];", note),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("final confirmation after iteration 2: 1.02x [0.97, 1.07]", note),
            std::string::npos)
      << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;

  std::string line = moved_line(view, 5);
  EXPECT_EQ(line,
            "figures moved between measurements (1.60x → 1.02x): the machine's load changed: "
            "search, iteration 2: 1.60x [1.55, 1.65] (the run's figure); memory re-timing, "
            "iteration 2: 1.30x [1.25, 1.35]; final confirmation after iteration 2: 1.02x [0.97, "
            "1.07]");
  Json data = runs_report_data({view})["runs"][0];
  for (const Json& node : data["nodes"]) {
    EXPECT_EQ(node["moved"].get<std::string>(), node["id"] == 5 ? line : "") << node["id"];
  }
  ASSERT_EQ(data["final"].size(), 2u);
  EXPECT_EQ(data["final"][0]["moved"].get<std::string>(), line);  // #5, fastest as searched
  EXPECT_EQ(data["final"][1]["moved"].get<std::string>(), "");
  std::string html = runs_html({view});
  EXPECT_NE(html.find(line), std::string::npos);
  EXPECT_NE(html.find("el('p', { class: 'moved' }, '\\u26A0 ' + n.moved)"), std::string::npos);
}

// A figure measured on a busy machine carries its mark in show's tables and the HTML report, and
// the table says what the mark means; a % of peak over 100 says the ceiling is wrong.
TEST(RunText, BusyFiguresAndFiguresOverTheCeilingAreMarked) {
  auto store = store::Store::open(":memory:");
  RunView view = load_run_view(*store, testing::write_sample_run(*store, silu()));
  std::ostringstream quiet;
  print_show(quiet, view);
  EXPECT_EQ(quiet.str().find("[busy]"), std::string::npos) << quiet.str();
  view.traces[5].verdict.timing->load = kernel::MachineLoad{0.95, 0, 60, 3, true, std::nullopt};
  EXPECT_TRUE(view.figures(5).busy);
  std::ostringstream busy;
  print_show(busy, view);
  std::string text = busy.str();
  EXPECT_NE(text.find("1.60x [1.55, 1.65] [busy]  16.0% of peak"), std::string::npos) << text;
  EXPECT_NE(text.find("[busy]: measured while the machine was busy"), std::string::npos) << text;
  Json data = runs_report_data({view})["runs"][0];
  EXPECT_EQ(data["nodes"][4]["note"], "measured while the machine was busy");

  search::Figures over = view.scale.of(12, 11, 13);  // 10 % baseline: 120 % of peak
  EXPECT_EQ(figures_text(over),
            "12.00x [11.00, 13.00]  120.0% of peak (over the measured ceiling: the ceiling is "
            "wrong)");
}

// Issue 46: a run on remote workers says on how many workers its evaluations were made, and each
// one that was redone (its first worker lost) with why; a local run says nothing of it.
TEST(RunText, ShowSaysWhichRemoteEvaluationsWereRedoneAndWhy) {
  auto store = store::Store::open(":memory:");
  RunView view = load_run_view(*store, testing::write_sample_run(*store, silu()));
  std::ostringstream local;
  print_show(local, view);
  EXPECT_EQ(local.str().find("remote evaluations"), std::string::npos) << local.str();
  int evaluations = 0;
  int64_t redone = 0;
  for (auto& [id, trace] : view.traces) {
    if (trace.reused_from) continue;
    ++evaluations;
    trace.verdict.remote = kernel::RemoteEvaluation{"w1", 10 + id, 1, ""};
    redone = id;
  }
  kernel::Verdict verdict = view.traces[redone].verdict;
  const std::string why = "w1 was gone (no connection) for 10.0 s during attempt 1";
  verdict.remote = kernel::RemoteEvaluation{"w2", 17, 2, why};
  view.traces[redone].verdict = kernel::Verdict::from_json(verdict.to_json());  // as stored
  std::ostringstream remote;
  print_show(remote, view);
  std::string text = remote.str();
  EXPECT_NE(text.find(fmt::format("remote evaluations: {} on 2 workers, 1 redone", evaluations)),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find(fmt::format("#{} redone: attempt 2 of job 17 on w2; before: {}", redone, why)),
      std::string::npos)
      << text;
}

// Measurements that agree leave one figure: the sample's memory entry (#2 over the baseline at
// 1.50x [1.45, 1.55]) matches the search's timing of #2.
TEST(RunText, AgreeingMeasurementsShowOneFigure) {
  auto store = store::Store::open(":memory:");
  RunView view = load_run_view(*store, testing::write_sample_run(*store, silu()));
  ASSERT_EQ(view.retimings(2).size(), 1u);
  std::ostringstream out;
  print_show(out, view);
  EXPECT_EQ(out.str().find("figures moved"), std::string::npos) << out.str();
  EXPECT_EQ(runs_html({view}).find("figures moved between measurements ("), std::string::npos);
}

}  // namespace
}  // namespace accelopt::report
