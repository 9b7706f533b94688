// End to end (slow): the real `accelopt` binary optimizes a task with the tuner, on the real CPU
// platform, with a tiny budget in a temporary workspace; then `runs`, `show`, `export` and `memory
// list` read the run back. Then the LLM agents over HTTP, and kill -9 followed by resume.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>

#include "cli/cli_test_support.h"
#include "common/files.h"
#include "common/json.h"
#include "scripted_model_server.h"
#include "store/resumed_run_check.h"
#include "store/store.h"

namespace accelopt::cli {
namespace {

using Result = testing::CommandOutput;

// `accelopt ARGUMENTS`, from the folder `cwd` when one is given.
TEST(OptimizeEndToEnd, AMisspeltTableIsAnErrorBeforeAnyRun) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config, "[serach]\niterations = 1\n");
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu";
  Result optimize =
      testing::run_accelopt("optimize --task " + task + " --workload small --config " +
                                config.string() + " --workspace " + workspace.string(),
                            dir.path());
  EXPECT_NE(optimize.code, 0) << optimize.output;
  EXPECT_NE(
      optimize.output.find(config.string() + ":1: [serach]: unknown table; did you mean [search]?"),
      std::string::npos)
      << optimize.output;
  EXPECT_FALSE(std::filesystem::exists(workspace / "accelopt.db"));
}

TEST(OptimizeEndToEnd, AnUnknownWorkloadIsAnErrorBeforeAnyDatabase) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu";
  Result optimize = testing::run_accelopt(
      "optimize --task " + task + " --workload nosuch --workspace " + workspace.string(),
      dir.path());
  EXPECT_NE(optimize.code, 0) << optimize.output;
  EXPECT_NE(optimize.output.find("nosuch"), std::string::npos) << optimize.output;
  EXPECT_FALSE(std::filesystem::exists(workspace)) << optimize.output;
}

// `--task bench/…` from a folder outside the repository finds the suite accelopt was built from; a
// task in neither place is named with both.
TEST(OptimizeEndToEnd, ABenchTaskIsFoundFromAnyFolder) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  Result found = testing::run_accelopt(
      "optimize --task bench/cpu/silu --workload nosuch --workspace " + workspace.string(),
      dir.path(), dir.path());
  EXPECT_NE(found.output.find("nosuch"), std::string::npos) << found.output;  // the task was read
  EXPECT_EQ(found.output.find("no such task folder"), std::string::npos) << found.output;
  Result missing = testing::run_accelopt(
      "optimize --task bench/cpu/nosuch --workspace " + workspace.string(), dir.path(), dir.path());
  EXPECT_NE(missing.code, 0) << missing.output;
  EXPECT_NE(missing.output.find("--task bench/cpu/nosuch: no such task folder (looked in " +
                                (dir.path() / "bench/cpu/nosuch").string() + " and " +
                                std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/nosuch)"),
            std::string::npos)
      << missing.output;
  EXPECT_FALSE(std::filesystem::exists(workspace));
}

// `bench --suite NAME` finds bench/NAME from any folder, as `--task bench/…` does; a name that is
// neither a folder nor a suite lists the suites.
TEST(BenchSuite, ASuiteIsFoundByNameFromAnyFolder) {
  TempDir dir;
  Result found =
      testing::run_accelopt("bench --suite flashinfer --tasks nosuch", dir.path(), dir.path());
  EXPECT_NE(found.code, 0) << found.output;
  EXPECT_NE(found.output.find(std::string(ACCELOPT_SOURCE_DIR) +
                              "/bench/flashinfer/nosuch: not a task directory"),
            std::string::npos)
      << found.output;
  Result missing = testing::run_accelopt("bench --suite flashinfre", dir.path(), dir.path());
  EXPECT_NE(missing.code, 0) << missing.output;
  EXPECT_NE(missing.output.find("--suite flashinfre: no such folder, nor a suite of " +
                                std::string(ACCELOPT_SOURCE_DIR) +
                                "/bench/ (suites: cpu, cuda, flashinfer)"),
            std::string::npos)
      << missing.output;
}

// A task that cannot be evaluated here (its reference does not compile; a PyTorch without a
// kernel it needs) is a failed row of the table, and the suite goes on with the others.
TEST(BenchSuite, ATaskThatCannotRunIsARowAndTheOthersStillRun) {
  TempDir dir;
  std::filesystem::path suite = dir.path() / "suite";
  std::filesystem::path axpy = std::filesystem::path(ACCELOPT_SOURCE_DIR) / "tests/data/tasks/axpy";
  for (const char* name : {"a_broken", "b_axpy"}) {
    std::filesystem::create_directories(suite / name);
    std::filesystem::copy(axpy, suite / name, std::filesystem::copy_options::recursive);
  }
  write_file_atomic(suite / "a_broken/reference.cpp", "this is not C++\n");
  Result bench = testing::run_accelopt(
      "bench --suite " + suite.string() + " --workload small --budget 1", dir.path());
  EXPECT_EQ(bench.code, 1) << bench.output;
  EXPECT_NE(bench.output.find("EVALUATION_FAILED"), std::string::npos) << bench.output;
  EXPECT_NE(bench.output.find("does not compile"), std::string::npos) << bench.output;
  EXPECT_NE(bench.output.find("[2/2] b_axpy: baseline"), std::string::npos) << bench.output;
}

// `bench --kernels DIR` times the tasks DIR has kernels for, not the whole suite's baselines.
TEST(BenchSuite, KernelsFromAFolderTimeOnlyTheirTasks) {
  TempDir dir;
  std::filesystem::path suite = dir.path() / "suite";
  std::filesystem::path axpy = std::filesystem::path(ACCELOPT_SOURCE_DIR) / "tests/data/tasks/axpy";
  for (const char* name : {"a_axpy", "b_axpy"}) {
    std::filesystem::create_directories(suite / name);
    std::filesystem::copy(axpy, suite / name, std::filesystem::copy_options::recursive);
  }
  std::filesystem::create_directories(dir.path() / "mine");
  std::filesystem::copy_file(axpy / "baseline.cpp", dir.path() / "mine" / "b_axpy.cpp");
  Result bench = testing::run_accelopt("bench --suite " + suite.string() + " --kernels " +
                                           (dir.path() / "mine").string() +
                                           " --workload small --budget 1 --no-library",
                                       dir.path());
  EXPECT_NE(bench.output.find("has kernels for 1 of the suite's 2 tasks"), std::string::npos)
      << bench.output;
  EXPECT_NE(bench.output.find("[1/1] b_axpy: from mine"), std::string::npos) << bench.output;
  EXPECT_EQ(bench.output.find("a_axpy: baseline"), std::string::npos) << bench.output;
}

TEST(OptimizeEndToEnd, TunerThenRunsShowExportMemory) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 2\nmax_evaluations = 4\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  // silu's small workload: axpy's (N = 4096) is refused by the roofline check (REJECTED_PHYSICS)
  // on this harness, and its default one sits near the check's margin, so a slow moment fails it.
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu";
  Result optimize =
      testing::run_accelopt("optimize --task " + task + " --workload small --config " +
                                config.string() + " --workspace " + workspace.string(),
                            dir.path());
  ASSERT_EQ(optimize.code, 0) << optimize.output;
  EXPECT_NE(optimize.output.find("no model configured: optimizing with the built-in tuner"),
            std::string::npos)
      << optimize.output;
  EXPECT_NE(optimize.output.find("run 1: "), std::string::npos) << optimize.output;
  EXPECT_NE(optimize.output.find("% of peak"), std::string::npos) << optimize.output;
  EXPECT_NE(optimize.output.find("iteration 1/2"), std::string::npos)
      << optimize.output;  // progress

  Result runs = testing::run_accelopt("runs --workspace " + workspace.string(), dir.path());
  ASSERT_EQ(runs.code, 0) << runs.output;
  EXPECT_NE(runs.output.find("silu"), std::string::npos) << runs.output;

  Result show = testing::run_accelopt("show 1 --workspace " + workspace.string(), dir.path());
  ASSERT_EQ(show.code, 0) << show.output;
  for (const char* part : {"iteration", "best kernels", "lineage of the best",
                           "memory entries made", "cost by role", "#1 baseline"}) {
    EXPECT_NE(show.output.find(part), std::string::npos) << part << "\n" << show.output;
  }

  std::filesystem::path out = dir.path() / "export";
  Result exported = testing::run_accelopt(
      "export 1 --out " + out.string() + " --workspace " + workspace.string(), dir.path());
  ASSERT_EQ(exported.code, 0) << exported.output;
  EXPECT_TRUE(std::filesystem::exists(out / "best.cpp"));
  Json traces = Json::parse(read_file(out / "traces.json"));
  ASSERT_GE(traces.size(), 2u);
  EXPECT_EQ(traces[0]["kind"], "baseline");
  EXPECT_EQ(traces[0]["verdict"]["status"], "PASSED");
  Json run = Json::parse(read_file(out / "run.json"));
  EXPECT_EQ(run["config"]["task"], "silu");

  // One figure: the run's end, `show` and `export` name the same kernel with the same speedup.
  std::smatch ended, shown;
  ASSERT_TRUE(
      std::regex_search(optimize.output, ended,
                        std::regex(R"(\nbest #(\d+) +(\d+\.\d\dx \[\d+\.\d\d, \d+\.\d\d\]))")))
      << optimize.output;
  ASSERT_TRUE(std::regex_search(
      show.output, shown, std::regex(R"(  best: #(\d+) (\d+\.\d\dx \[\d+\.\d\d, \d+\.\d\d\]))")))
      << show.output;
  EXPECT_EQ(ended[1], shown[1]) << optimize.output << show.output;
  EXPECT_EQ(ended[2], shown[2]) << optimize.output << show.output;
  EXPECT_NE(optimize.output.find("#" + ended[1].str() + "'s figure: "), std::string::npos)
      << optimize.output;
  // The last progress line names the same kernel at the same figure.
  std::string progress = optimize.output.substr(0, optimize.output.find("\nkernel "));
  std::string named = "best #" + ended[1].str() + " " + ended[2].str();
  size_t last = progress.rfind("best #");
  ASSERT_NE(last, std::string::npos) << optimize.output;
  EXPECT_EQ(progress.substr(last, named.size()), named) << optimize.output;
  ASSERT_TRUE(run["winner"].is_object()) << run.dump(1);
  EXPECT_EQ(run["winner"]["candidate"].get<int64_t>(), std::stoll(ended[1].str()));
  EXPECT_EQ(fmt::format("{:.2f}x", run["winner"]["figures"]["speedup"].get<double>()),
            ended[2].str().substr(0, ended[2].str().find(' ')));

  Result memory =
      testing::run_accelopt("memory list --workspace " + workspace.string(), dir.path());
  EXPECT_EQ(memory.code, 0) << memory.output;
  Result unknown = testing::run_accelopt("show 7 --workspace " + workspace.string(), dir.path());
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("there is no run 7"), std::string::npos) << unknown.output;
}

// Two runs' figures were measured apart: `compare` says they do not rank the runs, `--retime` times
// the two best kernels head to head; `eval` of an exported kernel prints the figure the workspace
// holds for it beside its own. (passes_axpy: every kernel the tuner makes is far below the
// roofline.)
TEST(OptimizeEndToEnd, CompareRetimesAndEvalReadsTheWorkspace) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 1\nmax_evaluations = 2\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/tests/data/tasks/passes_axpy";
  for (int run = 1; run <= 2; ++run) {
    Result optimize =
        testing::run_accelopt("optimize --task " + task + " --workload small --config " +
                                  config.string() + " --workspace " + workspace.string(),
                              dir.path());
    ASSERT_EQ(optimize.code, 0) << optimize.output;
  }
  Result compare =
      testing::run_accelopt("compare 1 2 --workspace " + workspace.string(), dir.path());
  ASSERT_EQ(compare.code, 0) << compare.output;
  EXPECT_NE(compare.output.find("measured apart"), std::string::npos) << compare.output;
  EXPECT_NE(compare.output.find("compare 1 2 --retime"), std::string::npos) << compare.output;
  Result retimed =
      testing::run_accelopt("compare 1 2 --retime --workspace " + workspace.string(), dir.path());
  ASSERT_EQ(retimed.code, 0) << retimed.output;
  EXPECT_NE(retimed.output.find("run 2's best (#"), std::string::npos) << retimed.output;
  EXPECT_TRUE(retimed.output.find("ranks first") != std::string::npos ||
              retimed.output.find("no different: the runs do not rank") != std::string::npos)
      << retimed.output;

  std::filesystem::path out = dir.path() / "export";
  ASSERT_EQ(testing::run_accelopt(
                "export 1 --out " + out.string() + " --workspace " + workspace.string(), dir.path())
                .code,
            0);
  Result eval = testing::run_accelopt("eval --task " + task + " --workload small --kernel " +
                                          (out / "best.cpp").string() + " --workspace " +
                                          workspace.string() + " --budget 2 --target 0.2",
                                      dir.path());
  ASSERT_EQ(eval.code, 0) << eval.output;
  EXPECT_NE(eval.output.find("stored     run 1 #"), std::string::npos) << eval.output;
  EXPECT_TRUE(eval.output.find("agrees with this evaluation") != std::string::npos ||
              eval.output.find("DISJOINT") != std::string::npos)
      << eval.output;
  // No workspace given and none here: eval reads nothing and makes nothing.
  Result alone =
      testing::run_accelopt("eval --task " + task + " --workload small --no-time", dir.path());
  EXPECT_EQ(alone.code, 0) << alone.output;
  EXPECT_EQ(alone.output.find("stored"), std::string::npos) << alone.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / ".accelopt"));
}

// The LLM agents over HTTP against the scripted model server: the executor answers a faster kernel
// and a broken one, the fixer repairs it; the faster kernel enters the beam, every attempt is in
// the lineage and every model call in the database's ledger.
TEST(OptimizeEndToEnd, LlmAgentsAgainstAScriptedServer) {
  accelopt::testing::ScriptedModelServer server;
  server.queue("executor", accelopt::testing::kernel_answer(accelopt::testing::axpy::faster()));
  server.queue("executor", accelopt::testing::kernel_answer(accelopt::testing::axpy::broken()));
  server.queue("fixer", accelopt::testing::kernel_answer(accelopt::testing::axpy::repaired()));
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config, server.config_toml() +
                                "\n[search]\npreset = \"quick\"\niterations = 1\nbeam_width = 2\n"
                                "plans = 2\nimplementations = 1\nagent_concurrency = 1\n"
                                "timing_target = 0.1\ntiming_budget_seconds = 1.0\n"
                                "timing_min_pairs = 4\n");
  // passes_axpy's baseline and the scripted kernels send every element through a volatile: far
  // below the roofline by construction, so the physics check never refuses them on a quiet machine.
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/tests/data/tasks/passes_axpy";
  Result optimize =
      testing::run_accelopt("optimize --agents llm --task " + task + " --workload small --config " +
                                config.string() + " --workspace " + workspace.string(),
                            dir.path());
  ASSERT_EQ(optimize.code, 0) << optimize.output;
  EXPECT_GE(server.count("planner"), 1);
  EXPECT_EQ(server.count("executor"), 2);

  std::filesystem::path out = dir.path() / "export";
  ASSERT_EQ(testing::run_accelopt(
                "export 1 --out " + out.string() + " --workspace " + workspace.string(), dir.path())
                .code,
            0);
  Json traces = Json::parse(read_file(out / "traces.json"));
  std::map<std::string, std::string> status_by_kind;
  for (const Json& trace : traces) {
    std::string kind = trace["kind"];
    if (kind == "fixer" || trace["verdict"]["status"] != "PASSED") {
      status_by_kind[kind + ":" + trace["verdict"]["status"].get<std::string>()] = trace["author"];
    }
  }
  EXPECT_TRUE(status_by_kind.count("executor:COMPILE_ERROR")) << traces.dump(1);
  EXPECT_TRUE(status_by_kind.count("fixer:PASSED")) << traces.dump(1);
  EXPECT_EQ(server.count("fixer"), 1);
  // The faster kernel passed and took the beam's free place (whether it beats the baseline beyond
  // noise on a memory-bound task on a shared machine is not this test's business).
  Json run = Json::parse(read_file(out / "run.json"));
  ASSERT_EQ(run["best"].size(), 2u) << run.dump(1);

  Result show = testing::run_accelopt("show 1 --workspace " + workspace.string(), dir.path());
  EXPECT_NE(show.output.find("planner"), std::string::npos) << show.output;  // cost by role
  EXPECT_NE(show.output.find("llm:"), std::string::npos) << show.output;

  // Every call the server saw is in the run's ledger, the preflight's ping included.
  auto database = store::Store::open(store::database_path(workspace));
  std::vector<accelopt::CallRecord> calls = database->calls("1");
  EXPECT_EQ(calls.size(), server.requests().size());
  EXPECT_EQ(
      std::count_if(calls.begin(), calls.end(),
                    [](const accelopt::CallRecord& call) { return call.role == "preflight"; }),
      1);
  EXPECT_EQ(server.count("unknown"), 1);  // the ping: "Reply with the single word: pong"
}

// kill -9 in the middle of a run, then `accelopt resume`: what was recorded before the kill stays
// as it was (nothing lost, nothing evaluated again), and the run finishes all its iterations.
TEST(OptimizeEndToEnd, ResumeAfterKillNine) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 3\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  std::string binary = std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt";
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/matmul";
  std::string log = (dir.path() / "killed.txt").string();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execl(binary.c_str(), binary.c_str(), "optimize", "--task", task.c_str(), "--workload",
            "small", "--config", config.c_str(), "--workspace", workspace.c_str(), nullptr);
    ::_exit(127);
  }
  // Kill it once it has recorded a few candidates of its first iterations: within 8 minutes, since
  // beside other work four candidates took over two (a CI run with a core kept busy: 3 in 120 s).
  auto database = store::database_path(workspace);
  size_t before_kill = 0;
  for (int wait = 0; wait < 4800 && before_kill < 4; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    // Open the database only once the child has made it (it logs the run's start): two processes
    // creating one database's schema at once collide.
    if (read_file(log).find("run 1 ") == std::string::npos) continue;
    before_kill = store::Store::open(database)->candidates(1).size();
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << read_file(log);  // it was still running
  store::RecordedRun recorded = store::record_interrupted_run(database, 1);
  ASSERT_GE(recorded.candidates.size(), 4u);

  Result resume = testing::run_accelopt("resume 1 --workspace " + workspace.string(), dir.path());
  ASSERT_EQ(resume.code, 0) << resume.output;
  store::expect_resume_kept_everything(database, 1, recorded);
}

// On a terminal, `accelopt eval` shows on stderr that it is alive while it compiles, checks and
// times (it used to print nothing for half a minute). Run in a pseudo-terminal, as a person sees
// it.
TEST(EvalOnATerminal, ShowsElapsedTime) {
  std::string binary = std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt";
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu";
  int terminal = -1;
  pid_t child = forkpty(&terminal, nullptr, nullptr, nullptr);
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::setenv("TERM", "xterm", 1);
    ::execl(binary.c_str(), binary.c_str(), "eval", "--task", task.c_str(), "--workload", "small",
            "--budget", "2", nullptr);
    ::_exit(127);
  }
  std::string seen;
  char buffer[4096];
  ssize_t got = 0;
  while ((got = ::read(terminal, buffer, sizeof buffer)) > 0) seen.append(buffer, got);
  ::close(terminal);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_NE(seen.find("evaluating baseline.cpp on silu ... 0 s"), std::string::npos) << seen;
  EXPECT_NE(seen.find("status"), std::string::npos) << seen;  // the verdict follows
}

}  // namespace
}  // namespace accelopt::cli
