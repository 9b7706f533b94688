// A deliberate fault sweep: the real `accelopt` binary reads back a database holding every shape of
// run a workspace can hold (finished, stopped by a budget, interrupted, failed, still running,
// empty, a baseline that failed, NaN and ±inf figures, text that is not UTF-8), and every reading
// command on each must end in 0 or a clear user error (2), never in an internal error (3). Then the
// real search: a kernel with a Latin-1 comment whose outputs are NaN is optimized, recorded and
// read back.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <algorithm>

#include <cstdlib>
#include <limits>

#include "cli/cli_test_support.h"
#include "common/files.h"
#include "common/json.h"
#include "report/report_test_data.h"
#include "store/store.h"

namespace accelopt::cli {
namespace {

using report::testing::candidate;
using report::testing::failed;
using report::testing::passed;
using Kind = store::CandidateKind;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
const std::string kLatin1Comment = "// caf\xe9 \xff\n";

using Result = testing::CommandOutput;

std::filesystem::path silu_directory() {
  return std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/cpu/silu";
}

int64_t create_run(store::Store& store, const std::string& agents = "tuner") {
  search::RunSettings settings;
  settings.task = "silu";
  settings.workload = "small";
  settings.agents = agents;
  settings.task_directory = silu_directory().string();
  settings.search = search::preset("quick");
  return store.create_run(settings.to_json());
}

const std::string kBase = "void kernel() {\n  for (int i = 0; i < n; ++i) out[i] = f(x[i]);\n}\n";

// A verdict whose every figure is NaN or ±inf: outputs that overflowed, timed against nothing.
kernel::Verdict non_finite() {
  kernel::Verdict verdict = passed(kNan, kInf);
  verdict.timing->speedup_low = kNan;
  verdict.timing->latency_seconds = kNan;
  verdict.timing->latency_low = -kInf;
  verdict.timing->ratios = {kNan, kInf, 1.0};
  verdict.roofline->peak_seconds = kInf;
  verdict.roofline->gflops = kNan;
  verdict.correctness.rel_l2_error = kNan;
  verdict.correctness.max_abs_error = kInf;
  verdict.correctness.max_rel_error = -kInf;
  verdict.compile_seconds = kNan;
  verdict.wall_seconds = kInf;
  return verdict;
}

kernel::Verdict incorrect_nan() {
  kernel::Verdict verdict =
      failed(kernel::Status::kIncorrectNumerical, "outputs hold non-finite values");
  verdict.correctness.rel_l2_error = kNan;
  verdict.correctness.max_abs_error = kInf;
  verdict.log = "out[3] = nan; " + kLatin1Comment;
  return verdict;
}

// A run of a baseline, a NaN-ridden pass, a NaN failure and a Latin-1 source, in `state`.
int64_t write_non_finite_run(store::Store& store, const std::string& state) {
  int64_t run = create_run(store);
  int64_t base = store.record_evaluation(
      candidate(run, "baseline", 0, std::nullopt, Kind::kBaseline, kBase, ""), passed(10, 1.0));
  std::vector<store::MemoryEntryRecord> none;
  store.commit_iteration({run, 0, Json{{"beam", {base}}}, ""}, none);
  int64_t odd = store.record_evaluation(
      candidate(run, "i1/b0/p0/k0", 1, base, Kind::kTuner, kLatin1Comment + kBase, "CHUNK=4"),
      non_finite());
  store.record_evaluation(
      candidate(run, "i1/b0/p0/k1", 1, base, Kind::kTuner, kBase + kLatin1Comment, "CHUNK=2"),
      incorrect_nan());
  store.commit_iteration({run, 1, Json{{"beam", {odd, base}}, {"best", kNan}}, ""}, none);
  store.set_run_state(run, state);
  return run;
}

// Every shape of run; returns their ids.
std::vector<int64_t> write_every_shape(store::Store& store) {
  std::vector<int64_t> runs;
  runs.push_back(report::testing::write_sample_run(store, silu_directory()));
  runs.push_back(write_non_finite_run(store, "finished"));
  runs.push_back(write_non_finite_run(store, "stopped: budget"));
  runs.push_back(write_non_finite_run(store, "interrupted"));
  runs.push_back(write_non_finite_run(store, "failed: no agent could be reached"));
  runs.push_back(write_non_finite_run(store, "running"));
  int64_t empty = create_run(store);
  store.set_run_state(empty, "failed: the baseline did not compile");
  runs.push_back(empty);
  runs.push_back(create_run(store));  // running, nothing recorded yet
  int64_t broken_baseline = create_run(store);
  store.record_evaluation(
      candidate(broken_baseline, "baseline", 0, std::nullopt, Kind::kBaseline, kBase, ""),
      failed(kernel::Status::kCompileError, "expected ';'"));
  store.set_run_state(broken_baseline, "failed: the baseline failed: COMPILE_ERROR");
  runs.push_back(broken_baseline);
  return runs;
}

class FaultSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = store::Store::open(store::database_path(workspace_));
    runs_ = write_every_shape(*store);
  }

  // Runs `command`; it must end in 0 or a user error that says something, never an internal error.
  void expect_no_internal_error(const std::string& command) {
    Result result =
        testing::run_accelopt(command + " --workspace " + workspace_.string(), dir_.path());
    EXPECT_TRUE(result.code == 0 || result.code == 2) << command << " → " << result.code << "\n"
                                                      << result.output;
    EXPECT_EQ(result.output.find("internal error"), std::string::npos) << command << ":\n"
                                                                       << result.output;
    if (result.code == 2) {
      EXPECT_NE(result.output.find("accelopt: "), std::string::npos) << command;
    }
  }

  std::string out(const std::string& name) const { return (dir_.path() / name).string(); }

  TempDir dir_;
  std::filesystem::path workspace_ = dir_.path() / "ws";
  std::vector<int64_t> runs_;
};

TEST_F(FaultSweep, ListingCommands) {
  expect_no_internal_error("runs");
  expect_no_internal_error("memory list");
}

TEST_F(FaultSweep, EveryReadingCommandOnEveryRun) {
  for (int64_t run : runs_) {
    std::string n = std::to_string(run);
    expect_no_internal_error("show " + n);
    expect_no_internal_error("cost " + n);
    expect_no_internal_error("export " + n + " --out " + out("export" + n));
    expect_no_internal_error("export " + n + " --format flashinfer-trace --out " +
                             out("trace" + n));
    expect_no_internal_error("report " + n + " --out " + out("report" + n + ".html"));
    for (int64_t other : runs_) {
      expect_no_internal_error("compare " + n + " " + std::to_string(other));
    }
  }
}

TEST_F(FaultSweep, NonFiniteFiguresAreShownAsSuch) {
  Result show = testing::run_accelopt(
      "show " + std::to_string(runs_[1]) + " --workspace " + workspace_.string(), dir_.path());
  ASSERT_EQ(show.code, 0) << show.output;
  Result exported = testing::run_accelopt("export " + std::to_string(runs_[1]) + " --out " +
                                              out("nan") + " --workspace " + workspace_.string(),
                                          dir_.path());
  ASSERT_EQ(exported.code, 0) << exported.output;
}

// The issue's own case: a run, not a database written by hand. The start kernel has a Latin-1
// comment and writes NaN: the run is recorded, its kernel kept byte for byte, and every reading
// command (resume included) reads it back.
TEST(FaultSweepEndToEnd, ALatin1KernelWithNaNOutputsIsRecordedAndReadBack) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path task = std::filesystem::path(ACCELOPT_SOURCE_DIR) / "tests/data/tasks/axpy";
  std::string kernel = read_file(task / "baseline.cpp");
  std::string::size_type body = kernel.rfind('}');
  ASSERT_NE(body, std::string::npos);
  kernel.insert(body, "  out[0] = __builtin_nanf(\"\");\n");
  kernel = kLatin1Comment + kernel;
  std::filesystem::path kernel_file = dir.path() / "k.cpp";
  write_file_atomic(kernel_file, kernel);
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 1\nmax_evaluations = 2\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 0.5\ntiming_min_pairs = 4\n");
  std::string ws = " --workspace " + workspace.string();
  Result optimize =
      testing::run_accelopt("optimize --task " + task.string() + " --kernel " +
                                kernel_file.string() + " --config " + config.string() + ws,
                            dir.path());
  EXPECT_NE(optimize.code, 3) << optimize.output;
  EXPECT_EQ(optimize.output.find("internal error"), std::string::npos) << optimize.output;
  {
    auto store = store::Store::open(store::database_path(workspace));
    ASSERT_EQ(store->runs().size(), 1u) << optimize.output;
    auto candidates = store->candidates(1);
    ASSERT_FALSE(candidates.empty()) << optimize.output;
    EXPECT_TRUE(std::any_of(candidates.begin(), candidates.end(), [&](const auto& candidate) {
      return candidate.source == kernel;
    })) << "the start kernel is kept byte for byte";
    search::RunSettings settings = search::RunSettings::from_json(store->run(1)->config);
    EXPECT_EQ(settings.start_kernel, kernel);
  }
  for (const std::string& command :
       {std::string("show 1"), std::string("runs"), std::string("cost 1"),
        "export 1 --out " + (dir.path() / "best").string(),
        "export 1 --format flashinfer-trace --out " + (dir.path() / "trace").string(),
        "report 1 --out " + (dir.path() / "r.html").string(), std::string("compare 1 1"),
        std::string("resume 1")}) {
    Result result = testing::run_accelopt(command + ws, dir.path());
    // 1: resume ends the run `failed` (its start kernel does not pass); never 3.
    EXPECT_NE(result.code, 3) << command << ":\n" << result.output;
    EXPECT_EQ(result.output.find("internal error"), std::string::npos) << command << ":\n"
                                                                       << result.output;
  }
}

}  // namespace
}  // namespace accelopt::cli
