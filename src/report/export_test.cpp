// `export --format flashinfer-trace` against FlashInfer-Bench's own rules: every file of a run
// with kernels of each outcome passes flashinfer_trace_check.py (FlashInfer-Bench's schema and
// the layout its TraceSet.from_path reads), and what the checker cannot know: each trace's own
// time, its log, the machine and compiler, and solution names that two workspaces do not share.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "common/files.h"
#include "report/export.h"
#include "report/report_test_data.h"

namespace accelopt::report {
namespace {

std::filesystem::path silu() {
  return std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/cpu/silu";
}

struct Checked {
  int code = 0;
  std::string output;
};

Checked check_with_flashinfer_rules(const std::filesystem::path& directory) {
  std::filesystem::path script =
      std::filesystem::path(ACCELOPT_SOURCE_DIR) / "src/report/flashinfer_trace_check.py";
  std::filesystem::path output = directory.parent_path() / "check.txt";
  int status = std::system(
      fmt::format("python3 {} {} > {} 2>&1", script.string(), directory.string(), output.string())
          .c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, read_file(output)};
}

kernel::Verdict numerically_wrong() {
  kernel::Verdict verdict =
      testing::failed(kernel::Status::kIncorrectNumerical, "out[3] is 0.5, expected 0.73");
  verdict.correctness.max_abs_error = 0.23;
  verdict.correctness.max_rel_error = 0.31;
  verdict.log = "seed 1: 17 of 2048 values outside tolerance";
  return verdict;
}

// The sample run and a kernel of every other outcome; the run ends after them.
int64_t write_run_of_every_outcome(store::Store& store) {
  int64_t run = testing::write_sample_run(store, silu());
  using Kind = store::CandidateKind;
  auto add = [&](const std::string& key, const kernel::Verdict& verdict) {
    store.record_evaluation(testing::candidate(run, key, 3, std::nullopt, Kind::kExecutor,
                                               "// " + key + "\n", "plan " + key),
                            verdict);
  };
  add("i3/numerical", numerically_wrong());
  add("i3/source", testing::failed(kernel::Status::kRejectedSource, "includes <thread>"));
  add("i3/physics", testing::failed(kernel::Status::kRejectedPhysics, "faster than memory"));
  add("i3/runtime", testing::failed(kernel::Status::kRuntimeError, "killed by SIGSEGV"));
  add("i3/timeout", testing::failed(kernel::Status::kTimeout, "ran past 10 s"));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  store.set_run_state(run, "finished");
  return run;
}

std::vector<Json> read_jsonl(const std::filesystem::path& file) {
  std::vector<Json> records;
  std::istringstream lines(read_file(file));
  for (std::string line; std::getline(lines, line);) records.push_back(Json::parse(line));
  return records;
}

std::vector<std::filesystem::path> files_under(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::set<std::string> solution_names(const std::filesystem::path& directory) {
  std::set<std::string> names;
  for (const auto& file : files_under(directory / "solutions"))
    names.insert(Json::parse(read_file(file))["name"].get<std::string>());
  return names;
}

class FlashinferTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    run_ = write_run_of_every_outcome(*store_);
    view_ = load_run_view(*store_, run_);
    export_run(view_, out_, ExportFormat::kFlashinferTrace, "/home/a/ws");
  }
  // Every trace of the export, by the candidate id its solution name ends with.
  std::map<int64_t, Json> traces_by_candidate() const {
    std::map<int64_t, Json> traces;
    std::regex candidate_suffix("_c([0-9]+)$");
    for (const auto& file : files_under(out_ / "traces")) {
      for (Json& trace : read_jsonl(file)) {
        std::smatch match;
        std::string solution = trace["solution"];
        EXPECT_TRUE(std::regex_search(solution, match, candidate_suffix)) << solution;
        traces[std::stoll(match[1])] = trace;
      }
    }
    return traces;
  }

  std::unique_ptr<store::Store> store_ = store::Store::open(":memory:");
  int64_t run_ = 0;
  RunView view_;
  TempDir dir_;
  std::filesystem::path out_ = dir_.path() / "trace";
};

TEST_F(FlashinferTrace, EveryFileFollowsFlashinferBenchsSchemaAndLayout) {
  Checked checked = check_with_flashinfer_rules(out_);
  EXPECT_EQ(checked.code, 0) << checked.output;
  // The folders TraceSet.from_path reads, as FlashInfer-Bench's validator names their levels.
  EXPECT_TRUE(std::filesystem::exists(out_ / "definitions/activation/silu.json"));
  EXPECT_TRUE(std::filesystem::exists(out_ / "workloads/activation/silu.jsonl"));
  EXPECT_TRUE(std::filesystem::exists(out_ / "traces/baseline/activation/silu.jsonl"));
  EXPECT_TRUE(std::filesystem::exists(out_ / "traces/llm-tiny/activation/silu.jsonl"));
  EXPECT_EQ(files_under(out_ / "solutions/llm-tiny/activation/silu").size(), 9u);
  EXPECT_TRUE(std::filesystem::exists(out_ / "candidates.csv"));
  Json definition = Json::parse(read_file(out_ / "definitions/activation/silu.json"));
  EXPECT_NE(definition["reference"].get<std::string>().find("def run("), std::string::npos);
  EXPECT_NE(definition["reference"].get<std::string>().find("np.exp(-x)"),
            std::string::npos);  // the task's reference.py, as it is
}

TEST_F(FlashinferTrace, CheckerRefusesWhatFlashinferBenchRefuses) {
  // A failed kernel with performance figures: FlashInfer-Bench's Evaluation refuses it.
  std::filesystem::path file = out_ / "traces/llm-tiny/activation/silu.jsonl";
  std::string lines;
  for (Json trace : read_jsonl(file)) {
    if (trace["evaluation"]["status"] == "COMPILE_ERROR")
      trace["evaluation"]["performance"] = {{"latency_ms", 1.0}};
    lines += trace.dump() + "\n";
  }
  write_file_atomic(file, lines);
  Checked checked = check_with_flashinfer_rules(out_);
  EXPECT_EQ(checked.code, 1) << checked.output;
  EXPECT_NE(checked.output.find("status COMPILE_ERROR forbids performance"), std::string::npos)
      << checked.output;
}

TEST_F(FlashinferTrace, EachTraceHasItsOwnTimeLogAndMachine) {
  std::map<int64_t, Json> traces = traces_by_candidate();
  ASSERT_EQ(traces.size(), view_.candidates.size());
  for (const auto& [id, trace] : traces) {
    const Json& evaluation = trace["evaluation"];
    EXPECT_EQ(evaluation["timestamp"], view_.traces.at(id).created_at) << id;
    EXPECT_NE(evaluation["timestamp"], view_.run.updated_at) << id;
    EXPECT_EQ(evaluation["environment"]["hardware"], "Test CPU 9000");
    EXPECT_EQ(evaluation["environment"]["libs"]["compiler"], "g++ (Debian 12.2.0-14) 12.2.0 -O3");
    EXPECT_FALSE(evaluation["environment"]["libs"]["accelopt"].get<std::string>().empty());
    std::string status = evaluation["status"];
    EXPECT_EQ(evaluation.contains("correctness"),
              status == "PASSED" || status == "INCORRECT_NUMERICAL")
        << status;
    EXPECT_EQ(evaluation.contains("performance"), status == "PASSED") << status;
  }
  // The log: accelopt's own status (a rejection has none of FlashInfer's), message and details.
  auto log_of = [&](const std::string& key) {
    for (const auto& candidate : view_.candidates)
      if (candidate.key == key)
        return traces.at(candidate.id)["evaluation"]["log"].get<std::string>();
    return std::string();
  };
  EXPECT_EQ(log_of("i1/b0/p1/k0"), "COMPILE_ERROR: expected ';' before '}' token");
  EXPECT_EQ(log_of("i3/source"), "REJECTED_SOURCE: includes <thread>");
  EXPECT_EQ(log_of("i3/numerical"),
            "INCORRECT_NUMERICAL: out[3] is 0.5, expected 0.73\n"
            "seed 1: 17 of 2048 values outside tolerance");
  for (const auto& candidate : view_.candidates) {
    if (candidate.key != "i3/numerical") continue;
    const Json& correctness = traces.at(candidate.id)["evaluation"]["correctness"];
    EXPECT_DOUBLE_EQ(correctness["max_absolute_error"].get<double>(), 0.23);
    EXPECT_DOUBLE_EQ(correctness["max_relative_error"].get<double>(), 0.31);
  }
}

TEST_F(FlashinferTrace, SolutionNamesDifferBetweenWorkspaces) {
  // Another workspace's run 1 of the same task: its solutions must not replace these.
  auto other_store = store::Store::open(":memory:");
  int64_t other_run = write_run_of_every_outcome(*other_store);
  ASSERT_EQ(other_run, run_);
  std::filesystem::path other = dir_.path() / "other";
  export_run(load_run_view(*other_store, other_run), other, ExportFormat::kFlashinferTrace,
             "/home/b/ws");
  std::set<std::string> mine = solution_names(out_), theirs = solution_names(other);
  ASSERT_EQ(mine.size(), view_.candidates.size());
  for (const std::string& name : theirs) EXPECT_EQ(mine.count(name), 0u) << name;
}

// A run's kernels are written as what its platform compiles: a CUDA run's as .cu files, in both
// formats, and an evaluator's (.py, say) as its own; never a .cpp for a kernel that is not C++.
TEST_F(FlashinferTrace, KernelFilesTakeTheRunsKernelExtension) {
  for (const auto& [extension, language] :
       {std::pair<std::string, std::string>{".cu", "cuda"}, {".py", "python"}}) {
    SCOPED_TRACE(extension);
    RunView view = view_;
    view.settings.kernel_extension = extension;
    std::filesystem::path plain = dir_.path() / ("plain" + extension);
    export_run(view, plain, ExportFormat::kAccelopt, "/home/a/ws");
    EXPECT_TRUE(std::filesystem::exists(plain / ("best" + extension)));
    EXPECT_TRUE(std::filesystem::exists(plain / ("silu" + extension)));
    for (const auto& file : files_under(plain)) {
      EXPECT_NE(file.extension(), ".cpp") << file;
    }
    std::filesystem::path trace = dir_.path() / ("trace" + extension);
    export_run(view, trace, ExportFormat::kFlashinferTrace, "/home/a/ws");
    for (const auto& file : files_under(trace / "solutions")) {
      Json solution = Json::parse(read_file(file));
      EXPECT_EQ(solution["spec"]["language"], language) << solution.dump();
      EXPECT_EQ(solution["sources"][0]["path"], "kernel" + extension) << solution.dump();
    }
  }
}

TEST(FlashinferTraceFigures, PerformanceAndCsvShowTheRunsFigures) {
  auto store = store::Store::open(":memory:");
  int64_t run = testing::write_sample_run(*store, silu());
  // Measured 2x in a moment when the machine ran slower: its own latency and % of peak (40 %,
  // not 2 × the baseline's 10 %) are not the run's.
  store->record_evaluation(testing::candidate(run, "i3/b0/p0/k0", 3, std::nullopt,
                                              store::CandidateKind::kExecutor, "// moment\n", "p"),
                           testing::passed(40, 2.0));
  TempDir dir;
  export_run(load_run_view(*store, run), dir.path(), ExportFormat::kFlashinferTrace, "ws");
  int timed = 0;
  for (const auto& file : files_under(dir.path() / "traces")) {
    for (const Json& trace : read_jsonl(file)) {
      if (trace["evaluation"]["status"] != "PASSED") continue;
      const Json& performance = trace["evaluation"]["performance"];
      EXPECT_EQ(trace["workload"]["axes"]["M"], 32);
      EXPECT_NEAR(
          performance["latency_ms"].get<double>() * performance["speedup_factor"].get<double>(),
          performance["reference_latency_ms"].get<double>(), 1e-9);
      ++timed;
    }
  }
  EXPECT_EQ(timed, 5);
  std::string csv = read_file(dir.path() / "candidates.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "candidate,parent,iteration,kind,author,status,speedup,speedup_low,speedup_high,"
            "latency_ms,percent_of_peak,reused_from,winner,plan");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
  // Every row at the run's figures: 1.6 × 10 % and 2 × 10 %, not their moments' 20 % and 40 %.
  EXPECT_NE(csv.find(",16.00,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",20.00,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",40.00,"), std::string::npos) << csv;
}

}  // namespace
}  // namespace accelopt::report
