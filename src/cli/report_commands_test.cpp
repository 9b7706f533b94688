// The real `accelopt` binary on a workspace whose run was written straight into its database (no
// search: these tests are quick): runs, show, export (both formats), cost, compare and report;
// the papercuts of read-only commands on a mistyped or damaged workspace; and the HTML report
// opened in a real headless Chromium, which must draw its plots without a script error, ring the
// final beam in gold, keep lineage labels apart and fold a large tree.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "cli/cli_test_support.h"
#include "common/files.h"
#include "common/json.h"
#include "report/report_test_data.h"
#include "search/config.h"
#include "search/run_settings.h"
#include "store/store.h"

namespace accelopt::cli {
namespace {

using Result = testing::CommandOutput;

class ReportCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = store::Store::open(store::database_path(workspace_));
    std::filesystem::path silu = std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/cpu/silu";
    report::testing::write_sample_run(*store, silu);
    report::testing::write_sample_run(*store, silu);
  }
  std::string ws() const { return " --workspace " + workspace_.string(); }

  TempDir dir_;
  std::filesystem::path workspace_ = dir_.path() / "ws";
};

TEST_F(ReportCommands, RunsShowCostCompare) {
  Result runs = testing::run_accelopt("runs" + ws(), dir_.path());
  ASSERT_EQ(runs.code, 0) << runs.output;
  EXPECT_NE(runs.output.find("silu"), std::string::npos) << runs.output;
  Result show = testing::run_accelopt("show 1" + ws(), dir_.path());
  ASSERT_EQ(show.code, 0) << show.output;
  EXPECT_NE(show.output.find("Plan: Vectorize the loop with omp"), std::string::npos)
      << show.output;
  EXPECT_EQ(show.output.find("##"), std::string::npos) << show.output;
  Result cost = testing::run_accelopt("cost 1" + ws(), dir_.path());
  ASSERT_EQ(cost.code, 0) << cost.output;
  EXPECT_NE(cost.output.find("summarizer"), std::string::npos) << cost.output;
  Result compare = testing::run_accelopt("compare 1 2" + ws(), dir_.path());
  ASSERT_EQ(compare.code, 0) << compare.output;
  EXPECT_NE(compare.output.find("run 1"), std::string::npos) << compare.output;
  EXPECT_NE(compare.output.find("best kernels: identical"), std::string::npos) << compare.output;
}

TEST_F(ReportCommands, ReportIntoAMissingFolderCreatesIt) {
  std::filesystem::path html = dir_.path() / "missing" / "dir" / "r.html";
  Result report = testing::run_accelopt("report 1 --out " + html.string() + ws(), dir_.path());
  EXPECT_EQ(report.code, 0) << report.output;
  EXPECT_TRUE(std::filesystem::exists(html)) << report.output;
}

TEST_F(ReportCommands, ExportRefusesAnotherRunsExportWithoutForce) {
  std::filesystem::path out = dir_.path() / "best";
  ASSERT_EQ(testing::run_accelopt("export 1 --out " + out.string() + ws(), dir_.path()).code, 0);
  Result mixed = testing::run_accelopt("export 2 --out " + out.string() + ws(), dir_.path());
  EXPECT_EQ(mixed.code, 2) << mixed.output;
  EXPECT_NE(mixed.output.find("--force"), std::string::npos) << mixed.output;
  Result forced =
      testing::run_accelopt("export 2 --force --out " + out.string() + ws(), dir_.path());
  EXPECT_EQ(forced.code, 0) << forced.output;
}

TEST_F(ReportCommands, ExportWritesWhatBenchLooksFor) {
  std::filesystem::path out = dir_.path() / "best";
  Result exported = testing::run_accelopt("export 1 --out " + out.string() + ws(), dir_.path());
  ASSERT_EQ(exported.code, 0) << exported.output;
  EXPECT_TRUE(std::filesystem::exists(out / "silu.cpp"));  // bench --kernels OUT finds it
  EXPECT_EQ(read_file(out / "silu.cpp"), read_file(out / "best.cpp"));

  std::filesystem::path trace = dir_.path() / "trace";
  Result flashinfer = testing::run_accelopt(
      "export 1 --format flashinfer-trace --out " + trace.string() + ws(), dir_.path());
  ASSERT_EQ(flashinfer.code, 0) << flashinfer.output;
  for (const char* file : {"definitions/activation/silu.json", "workloads/activation/silu.jsonl",
                           "traces/baseline/activation/silu.jsonl", "candidates.csv"})
    EXPECT_TRUE(std::filesystem::exists(trace / file)) << file;
  Result wrong =
      testing::run_accelopt("export 1 --format csv --out " + trace.string() + ws(), dir_.path());
  EXPECT_NE(wrong.code, 0) << wrong.output;
}

TEST_F(ReportCommands, BenchSaysWhenKernelsHasNoKernelForATask) {
  std::filesystem::path empty = dir_.path() / "empty";
  std::filesystem::create_directories(empty);
  Result bench =
      testing::run_accelopt("bench --tasks silu --kernels " + empty.string(), dir_.path());
  EXPECT_EQ(bench.code, 2) << bench.output;
  EXPECT_NE(bench.output.find("no kernel for any of the 1 tasks"), std::string::npos)
      << bench.output;
}

// A tuner run that failed after its baseline: `cost` says the tuner calls no model (and succeeds),
// `show` says the run failed, why, and how to resume it.
TEST_F(ReportCommands, AFailedTunerRunsCostAndShow) {
  {
    auto store = store::Store::open(store::database_path(workspace_));
    search::RunSettings settings;
    settings.task = "silu";
    settings.workload = "small";
    settings.agents = "tuner";
    settings.task_directory =
        (std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/cpu/silu").string();
    settings.search = search::preset("quick");
    int64_t run = store->create_run(settings.to_json());
    int64_t baseline = store->record_evaluation(
        report::testing::candidate(run, "baseline", 0, std::nullopt,
                                   store::CandidateKind::kBaseline, "void kernel() {}\n", ""),
        report::testing::passed(10, 1.0));
    std::vector<store::MemoryEntryRecord> none;
    store->commit_iteration({run, 0, Json{{"beam", {baseline}}}, ""}, none);
    store->set_run_state(run, "failed: the platform broke down");
    ASSERT_EQ(run, 3);
  }
  Result cost = testing::run_accelopt("cost 3" + ws(), dir_.path());
  EXPECT_EQ(cost.code, 0) << cost.output;
  EXPECT_NE(cost.output.find("no model calls (the tuner)"), std::string::npos) << cost.output;
  Result show = testing::run_accelopt("show 3" + ws(), dir_.path());
  ASSERT_EQ(show.code, 0) << show.output;
  EXPECT_EQ(show.output.find("has not ended"), std::string::npos) << show.output;
  // The hint names the workspace the run is in, so that it works as printed.
  EXPECT_NE(show.output.find("the run failed: the platform broke down; `accelopt resume 3" + ws() +
                             "` continues it"),
            std::string::npos)
      << show.output;
}

TEST_F(ReportCommands, ReadOnlyCommandsRefuseAMissingDatabase) {
  std::filesystem::path typo = dir_.path() / "wss";
  for (const std::string& command :
       std::vector<std::string>{"runs", "show 1", "export 1 --out " + (dir_.path() / "x").string(),
                                "cost 1", "memory list", "compare 1 2", "report 1"}) {
    Result result = testing::run_accelopt(command + " --workspace " + typo.string(), dir_.path());
    EXPECT_EQ(result.code, 2) << command << ": " << result.output;
    EXPECT_NE(result.output.find("no accelopt database at " + (typo / "accelopt.db").string()),
              std::string::npos)
        << command << ": " << result.output;
  }
  EXPECT_FALSE(std::filesystem::exists(typo)) << "a read-only command created the workspace";
}

TEST_F(ReportCommands, BadNumbersAreRefused) {
  Result cost = testing::run_accelopt("cost abc" + ws(), dir_.path());
  EXPECT_EQ(cost.code, 2) << cost.output;
  EXPECT_NE(cost.output.find("abc"), std::string::npos) << cost.output;
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu";
  for (const std::string& command : std::vector<std::string>{
           "eval --task " + task + " --budget -1", "bench --tasks silu --budget -1",
           "eval --task " + task + " --target 0"}) {
    Result result = testing::run_accelopt(command, dir_.path());
    EXPECT_EQ(result.code, 2) << command << ": " << result.output;                // a usage error
    EXPECT_NE(result.output.find(", not "), std::string::npos) << result.output;  // names the bound
  }
}

TEST_F(ReportCommands, ATruncatedDatabaseIsCalledDamaged) {
  std::filesystem::path database = store::database_path(workspace_);
  auto size = std::filesystem::file_size(database);
  ASSERT_GT(size, 8192u);
  for (uintmax_t keep : {uintmax_t{50}, size / 2}) {
    std::filesystem::path copy = dir_.path() / ("cut" + std::to_string(keep));
    std::filesystem::create_directories(copy);
    std::filesystem::copy_file(database, store::database_path(copy));
    std::filesystem::resize_file(store::database_path(copy), keep);
    Result runs = testing::run_accelopt("runs --workspace " + copy.string(), dir_.path());
    EXPECT_EQ(runs.code, 2) << runs.output;
    EXPECT_NE(runs.output.find("is damaged: it is truncated"), std::string::npos) << runs.output;
    EXPECT_NE(runs.output.find(".recover"), std::string::npos) << runs.output;
  }
}

TEST_F(ReportCommands, AnotherProgramsFileIsCalledDamaged) {
  std::filesystem::path other = dir_.path() / "other";
  std::filesystem::create_directories(other);
  write_file_atomic(store::database_path(other), std::string(4096, 'x'));
  Result runs = testing::run_accelopt("runs --workspace " + other.string(), dir_.path());
  EXPECT_EQ(runs.code, 2) << runs.output;
  EXPECT_NE(runs.output.find("is damaged: it is not a SQLite file"), std::string::npos)
      << runs.output;
  EXPECT_NE(runs.output.find(".recover"), std::string::npos) << runs.output;
}

// Chromium as Debian packages it; empty when there is none.
std::string find_chromium() {
  for (const char* name : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (std::filesystem::exists(name)) return name;
  }
  return "";
}

std::string chromium_command(const std::string& chromium, const std::filesystem::path& profile) {
  return chromium +
         " --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars "
         "--user-data-dir=" +
         profile.string() + " --virtual-time-budget=10000 ";
}

struct RenderCheck {
  bool done = false;
  int charts = 0, canvases = 0;
  std::string errors;
  std::string dom;
  // The page's layout check at the window's width: data-width, data-titles, data-clipped-titles,
  // data-legends, data-paged-legends, data-legend-overlaps.
  std::map<std::string, int> numbers;
};

// The numbers a <div> of the render check carries as data-NAME="N", by NAME.
std::map<std::string, int> data_numbers(const std::string& tag) {
  std::map<std::string, int> numbers;
  std::regex attribute(R"re(data-([a-z-]+)="(-?\d+)")re");
  for (auto it = std::sregex_iterator(tag.begin(), tag.end(), attribute);
       it != std::sregex_iterator(); ++it)
    numbers[(*it)[1].str()] = std::atoi((*it)[2].str().c_str());
  return numbers;
}

RenderCheck read_render_check(const std::string& dom) {
  RenderCheck check;
  std::smatch match;
  std::string tag;
  if (!std::regex_search(dom, match, std::regex(R"(<div id="render-check"[^>]*>)"))) return check;
  tag = match[0];
  auto attribute = [&](const std::string& name) {
    std::smatch value;
    return std::regex_search(tag, value, std::regex(name + R"(="([^"]*)\")")) ? value[1].str() : "";
  };
  check.done = attribute("data-done") == "yes";
  check.charts = std::atoi(attribute("data-charts").c_str());
  check.canvases = std::atoi(attribute("data-canvases").c_str());
  check.errors = attribute("data-errors");
  check.numbers = data_numbers(tag);
  return check;
}

// Opens `html` in headless Chromium, in a window `width` pixels wide; saves it and a screenshot
// under the build tree's test-artifacts.
RenderCheck render(const std::filesystem::path& html, const std::string& screenshot,
                   const std::filesystem::path& scratch, int width = 1400) {
  std::string chromium = find_chromium();
  if (chromium.empty()) return {};
  std::string base = chromium_command(chromium, scratch / "profile");
  std::string window = fmt::format("--window-size={},2600 ", width);
  Result dom = testing::run_shell(
      base + window + "--dump-dom file://" + html.string() + " 2>/dev/null", scratch);
  std::filesystem::path artifacts = std::filesystem::path(ACCELOPT_BINARY_DIR) / "test-artifacts";
  std::filesystem::create_directories(artifacts);
  std::filesystem::copy_file(
      html, artifacts / std::filesystem::path(screenshot).replace_extension(".html"),
      std::filesystem::copy_options::overwrite_existing);
  testing::run_shell(base + window + "--screenshot=" + (artifacts / screenshot).string() +
                         " file://" + html.string(),
                     scratch);
  RenderCheck check = read_render_check(dom.output);
  check.dom = dom.output;
  return check;
}

// What a lineage chart drew, as the page read it back from ECharts' elements and canvas.
struct LineageCheck {
  bool found = false;
  int nodes = 0, drawn = 0, final = 0, gold_stroke = 0, gold_pixels = 0, labels = 0;
  int label_overlaps = -1;
};

// What a run's "every candidate" scatter and roofline drew, as the page read it back from ECharts'
// elements: points drawn, hollow ones (busy), failed ones and whether all sit below every passing
// one, iteration bands; roofline points, hollow ones, ceilings drawn. Empty when there is none.
std::map<std::string, int> read_candidates_check(const std::string& dom, int64_t run) {
  std::smatch match;
  std::regex tag(R"(<div class="candidates" data-run=")" + std::to_string(run) + R"("[^>]*>)");
  if (!std::regex_search(dom, match, tag)) return {};
  return data_numbers(match[0]);
}

LineageCheck read_lineage_check(const std::string& dom, int64_t run) {
  LineageCheck check;
  std::smatch match;
  std::regex tag(R"(<div class="lineage" data-run=")" + std::to_string(run) + R"("[^>]*>)");
  if (!std::regex_search(dom, match, tag)) return check;
  std::string found = match[0];
  auto number = [&](const std::string& name) {
    std::smatch value;
    bool has = std::regex_search(found, value, std::regex("data-" + name + R"re(="(-?\d+)")re"));
    return has ? std::atoi(value[1].str().c_str()) : -1;
  };
  check.found = true;
  check.nodes = number("nodes");
  check.drawn = number("drawn");
  check.final = number("final");
  check.gold_stroke = number("gold-stroke");
  check.gold_pixels = number("gold-pixels");
  check.labels = number("labels");
  check.label_overlaps = number("label-overlaps");
  return check;
}

// A run written straight into `store`, with no model calls (a tuner's): a chain of `depth`
// iterations, each adding `children` to the chain's head, the first of which passes faster and
// heads the chain from then on; the others fail in every way there is, or pass slower. The final
// beam is the last head and its parent. `busy_siblings`: the passing children other than the
// first were timed on a busy machine.
int64_t write_tuner_run(store::Store& store, int depth, int children, bool busy_siblings = false) {
  using Kind = store::CandidateKind;
  namespace testing = report::testing;
  search::RunSettings settings;
  settings.task = "silu";
  settings.workload = "small";
  settings.agents = "tuner";
  settings.task_directory =
      (std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/cpu/silu").string();
  settings.search = search::preset("quick");
  int64_t run = store.create_run(settings.to_json());
  std::vector<store::MemoryEntryRecord> none;
  int64_t head = store.record_evaluation(
      testing::candidate(run, "baseline", 0, std::nullopt, Kind::kBaseline, "// 0\n", ""),
      testing::passed(10, 1.0));
  store.commit_iteration({run, 0, Json{{"beam", {head}}}, ""}, none);
  const std::vector<kernel::Status> failures{kernel::Status::kCompileError,
                                             kernel::Status::kRuntimeError,
                                             kernel::Status::kTimeout,
                                             kernel::Status::kIncorrectShape,
                                             kernel::Status::kIncorrectNumerical,
                                             kernel::Status::kRejectedSource,
                                             kernel::Status::kRejectedPhysics};
  int64_t previous = head;
  for (int iteration = 1; iteration <= depth; ++iteration) {
    int64_t next = 0;
    for (int child = 0; child < children; ++child) {
      std::string key = fmt::format("i{}/k{}", iteration, child);
      double speedup = child == 0 ? 1.0 + 0.1 * iteration : 1.0;
      kernel::Verdict verdict =
          child % 2 == 0 ? testing::passed(10 * speedup, speedup, busy_siblings && child > 0)
                         : testing::failed(failures[child % failures.size()], "failed");
      int64_t id = store.record_evaluation(
          testing::candidate(run, key, iteration, head, Kind::kExecutor, "// " + key + "\n", key),
          verdict);
      if (child == 0) next = id;
    }
    previous = head;
    head = next;
    store.commit_iteration({run, iteration, Json{{"beam", {head, previous}}}, ""}, none);
  }
  store.set_run_state(run, "finished");
  return run;
}

TEST_F(ReportCommands, HtmlReportRendersInHeadlessChromium) {
  std::filesystem::path html = dir_.path() / "report.html";
  Result report = testing::run_accelopt("report 1 2 --out " + html.string() + ws(), dir_.path());
  ASSERT_EQ(report.code, 0) << report.output;
  std::string page = read_file(html);
  EXPECT_EQ(page.find("<script src"), std::string::npos);  // nothing to fetch: all inline
  EXPECT_EQ(page.find("<link"), std::string::npos);
  if (find_chromium().empty()) GTEST_SKIP() << "no chromium (scripts/setup.sh installs it)";
  RenderCheck check = render(html, "report.png", dir_.path());
  if (!check.done && check.charts == 0) GTEST_SKIP() << "chromium did not start or render here";
  EXPECT_TRUE(check.done);
  EXPECT_EQ(check.errors, "");
  // 6 progress plots, per run the candidates' scatter, its roofline and its lineage tree, the
  // cost bars.
  EXPECT_EQ(check.charts, 6 + 2 * 3 + 1);
  EXPECT_GE(check.canvases, check.charts);
}

TEST_F(ReportCommands, BenchReportRendersInHeadlessChromium) {
  Json rows = Json::array();
  auto row = [&](const std::string& task, const std::string& kernel, bool library, double percent) {
    rows.push_back({{"task", task},
                    {"kernel", kernel},
                    {"library", library},
                    {"verdict", report::testing::passed(percent, 1).to_json()}});
  };
  row("silu", "baseline", false, 10);
  row("silu", "onednn", true, 40);
  row("matmul", "baseline", false, 5);
  row("matmul", "onednn", true, 70);
  Json found = Json::array({{{"task", "silu"},
                             {"kernel", "from best"},
                             {"library", false},
                             {"verdict", report::testing::passed(25, 2.5).to_json()}}});
  write_file_atomic(dir_.path() / "base.json", rows.dump());
  write_file_atomic(dir_.path() / "found.json", found.dump());
  std::filesystem::path html = dir_.path() / "bench.html";
  Result report =
      testing::run_accelopt("report --bench " + (dir_.path() / "base.json").string() + " --bench " +
                                (dir_.path() / "found.json").string() + " --out " + html.string(),
                            dir_.path());
  ASSERT_EQ(report.code, 0) << report.output;
  if (find_chromium().empty()) GTEST_SKIP() << "no chromium (scripts/setup.sh installs it)";
  RenderCheck check = render(html, "bench_report.png", dir_.path());
  if (!check.done && check.charts == 0) GTEST_SKIP() << "chromium did not start or render here";
  EXPECT_EQ(check.errors, "");
  EXPECT_EQ(check.charts, 1);
  EXPECT_GE(check.canvases, 1);
}

// ReportCommands with a report opened in headless Chromium.
class RenderedReport : public ReportCommands {
 protected:
  // Writes the report of `runs` in `workspace` and opens it; skips the test without Chromium.
  void render_report(const std::string& runs, const std::filesystem::path& workspace,
                     const std::string& name, int width = 1400) {
    std::filesystem::path html = dir_.path() / (name + ".html");
    Result report = testing::run_accelopt(
        "report " + runs + " --out " + html.string() + " --workspace " + workspace.string(),
        dir_.path());
    ASSERT_EQ(report.code, 0) << report.output;
    if (find_chromium().empty()) GTEST_SKIP() << "no chromium (scripts/setup.sh installs it)";
    check_ = render(html, name + ".png", dir_.path(), width);
    if (!check_.done && check_.charts == 0) GTEST_SKIP() << "chromium did not start or render here";
    EXPECT_EQ(check_.errors, "");
  }
  bool rendered() const { return !IsSkipped() && !HasFatalFailure(); }

  RenderCheck check_;
};

// The final beam's nodes are drawn with a gold ring: the stroke ECharts drew and the canvas pixels
// on the ring both say so (ECharts' default emptyCircle would stroke with the status colour).
TEST_F(RenderedReport, LineageRingsTheFinalBeamInGold) {
  render_report("1", workspace_, "lineage_gold");
  if (!rendered()) return;
  LineageCheck lineage = read_lineage_check(check_.dom, 1);
  ASSERT_TRUE(lineage.found);
  EXPECT_EQ(lineage.final, 2);  // #5 and #2
  EXPECT_EQ(lineage.gold_stroke, 2);
  EXPECT_EQ(lineage.gold_pixels, 2);
}

// The side panel gives the candidate's % of peak once: the run's derived figure and its interval.
TEST_F(RenderedReport, SidePanelShowsOnePercentOfPeak) {
  render_report("1", workspace_, "side_panel");
  if (!rendered()) return;
  size_t start = check_.dom.find("<div class=\"details\">");
  ASSERT_NE(start, std::string::npos);
  std::string panel = check_.dom.substr(start, check_.dom.find("<h3>plan</h3>", start) - start);
  size_t count = 0;
  for (size_t at = panel.find("% of peak"); at != std::string::npos;
       at = panel.find("% of peak", at + 1))
    ++count;
  EXPECT_EQ(count, 1u) << panel;
  EXPECT_NE(panel.find("1.60x [1.55, 1.65],  16.0% of peak [15.5, 16.5]"), std::string::npos)
      << panel;  // #5
}

// A kernel whose measurements disagree: the side panel gives the run's figure once, then the
// marked line naming each measurement; `show` (the binary) lists them under the kernel's row.
TEST_F(RenderedReport, SidePanelMarksFiguresThatMovedBetweenMeasurements) {
  std::filesystem::path workspace = dir_.path() / "moved";
  {
    auto store = store::Store::open(store::database_path(workspace));
    int64_t run = report::testing::write_sample_run(
        *store, std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/cpu/silu");
    report::testing::end_sample_run_with_retimings(*store, run);
  }
  Result show = testing::run_accelopt("show 1 --workspace " + workspace.string(), dir_.path());
  ASSERT_EQ(show.code, 0) << show.output;
  EXPECT_NE(show.output.find("! figures moved between measurements (1.60x → 1.02x): the machine's "
                             "load changed:\n        search, iteration 2: 1.60x"),
            std::string::npos)
      << show.output;
  EXPECT_NE(show.output.find("final confirmation after iteration 2: 1.02x [0.97, 1.07]"),
            std::string::npos)
      << show.output;
  render_report("1", workspace, "side_panel_moved");
  if (!rendered()) return;
  size_t start = check_.dom.find("<div class=\"details\">");
  ASSERT_NE(start, std::string::npos);
  std::string panel = check_.dom.substr(start, check_.dom.find("<h3>plan</h3>", start) - start);
  EXPECT_NE(panel.find("1.60x [1.55, 1.65],  16.0% of peak [15.5, 16.5]"), std::string::npos)
      << panel;  // #5, the run's figure
  EXPECT_NE(
      panel.find("<p class=\"moved\">\u26A0 figures moved between measurements (1.60x → 1.02x): "
                 "the machine's load changed: search, iteration 2: 1.60x [1.55, 1.65] (the run's "
                 "figure); memory re-timing, iteration 2: 1.30x [1.25, 1.35]; final confirmation "
                 "after iteration 2: 1.02x [0.97, 1.07]</p>"),
      std::string::npos)
      << panel;
}

// Twelve siblings: every label drawn, none over another.
TEST_F(RenderedReport, SiblingLabelsDoNotOverlap) {
  std::filesystem::path workspace = dir_.path() / "wide";
  int64_t run = write_tuner_run(*store::Store::open(store::database_path(workspace)), 1, 12);
  render_report(std::to_string(run), workspace, "lineage_siblings");
  if (!rendered()) return;
  LineageCheck lineage = read_lineage_check(check_.dom, run);
  ASSERT_TRUE(lineage.found);
  EXPECT_EQ(lineage.drawn, 13);
  EXPECT_EQ(lineage.labels, 13);
  EXPECT_EQ(lineage.label_overlaps, 0);
}

// Hundreds of leaves: the tree opens on the final beam's ancestry, the rest folded.
TEST_F(RenderedReport, ALargeTreeOpensOnTheFinalBeamsAncestry) {
  std::filesystem::path workspace = dir_.path() / "large";
  int64_t run = write_tuner_run(*store::Store::open(store::database_path(workspace)), 10, 30);
  render_report(std::to_string(run), workspace, "lineage_large");
  if (!rendered()) return;
  LineageCheck lineage = read_lineage_check(check_.dom, run);
  ASSERT_TRUE(lineage.found);
  EXPECT_EQ(lineage.nodes, 301);
  EXPECT_LE(lineage.drawn, 30);  // the ancestry (11) and a folded "+N more" per step
  EXPECT_EQ(lineage.gold_stroke, 2);
  EXPECT_EQ(lineage.label_overlaps, 0);
}

// A tuner makes no model calls: no plots against model spend, and the page says why.
TEST_F(RenderedReport, ATunerRunHasNoModelSpendPlots) {
  std::filesystem::path workspace = dir_.path() / "tuner";
  int64_t run = write_tuner_run(*store::Store::open(store::database_path(workspace)), 2, 3);
  render_report(std::to_string(run), workspace, "tuner");
  if (!rendered()) return;
  // % of peak and speedup against evaluations and time; the candidates, the roofline, the lineage.
  EXPECT_EQ(check_.charts, 4 + 3);
  EXPECT_NE(check_.dom.find("No model calls (the built-in tuner)"), std::string::npos);
}

// Every candidate is a point of the scatter, in its status's colour; the busy ones hollow; the
// failed ones in the strip below every passing one; one band per iteration. Every passing kernel is
// a point of the roofline, busy ones hollow, under the two ceilings silu's counts reveal (vector
// arithmetic and memory: it does no multiply-adds, so its verdicts say nothing of the FMA one).
TEST_F(RenderedReport, EveryCandidateIsAPointAndEveryPassingKernelIsOnTheRoofline) {
  std::filesystem::path workspace = dir_.path() / "busy";
  int64_t run = write_tuner_run(*store::Store::open(store::database_path(workspace)), 3, 4, true);
  render_report(std::to_string(run), workspace, "candidates");
  if (!rendered()) return;
  std::map<std::string, int> drawn = read_candidates_check(check_.dom, run);
  ASSERT_FALSE(drawn.empty()) << check_.dom.substr(0, 2000);
  // The baseline and 3 iterations of 4 children: children 0 and 2 pass, 2 is busy, 1 and 3 fail.
  EXPECT_EQ(drawn["nodes"], 13);
  EXPECT_EQ(drawn["points"], 13);
  EXPECT_EQ(drawn["busy"], 3);
  EXPECT_EQ(drawn["hollow"], 3);
  EXPECT_EQ(drawn["failed"], 6);
  EXPECT_EQ(drawn["failed-below"], 1);
  EXPECT_EQ(drawn["bands"], 4);         // iterations 0 to 3
  EXPECT_EQ(drawn["scatter-gold"], 1);  // the run's best
  EXPECT_EQ(drawn["kernels"], 7);
  EXPECT_EQ(drawn["roofline-points"], 7);
  EXPECT_EQ(drawn["roofline-hollow"], 3);
  EXPECT_EQ(drawn["ceilings"], 2);
}

// At 900 pixels, every chart's title fits inside the chart (wrapped), every legend is plain (no
// pages) and sits inside the chart, clear of the plot, its axis and the title.
TEST_F(RenderedReport, EveryChartIsReadableAt900Pixels) {
  render_report("1 2", workspace_, "report_900", 900);
  if (!rendered()) return;
  EXPECT_EQ(check_.numbers["width"], 900);
  EXPECT_EQ(check_.numbers["titles"], 6 + 2 * 2);  // the progress plots, scatter and roofline
  EXPECT_EQ(check_.numbers["clipped-titles"], 0);
  EXPECT_EQ(check_.numbers["legends"], 6 + 2 * 2 + 1);  // and the cost bars
  EXPECT_EQ(check_.numbers["paged-legends"], 0);
  EXPECT_EQ(check_.numbers["legend-overlaps"], 0);
}

}  // namespace
}  // namespace accelopt::cli
