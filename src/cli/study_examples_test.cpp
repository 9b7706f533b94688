// End to end (slow): the example studies in studies/ each run to the end with --smoke (the tuner
// ones as written; the LLM one against the scripted model server), every cell finished and the
// report and its JSON written; and a study whose cells' evaluations go through PostgreSQL's queue
// to a real `accelopt worker` process (--remote-workers).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "cli/cli_test_support.h"
#include "common/files.h"
#include "common/json.h"
#include "common/subprocess.h"
#include "queue/queue.h"
#include "scripted_model_server.h"
#include "store/postgres_test_fixture.h"
#include "store/store.h"

namespace accelopt::cli {
namespace {

using namespace std::chrono_literals;

using Result = testing::CommandOutput;

// A shell word: the database URL carries '&' and '?'.
std::string quoted(const std::string& text) {
  return "'" + text + "'";
}

// `accelopt ARGUMENTS` run in `directory` (a PostgreSQL study writes ./.accelopt there).
Result accelopt_in(const std::string& arguments, const std::filesystem::path& directory) {
  return testing::run_accelopt(arguments, directory, directory);
}

bool cell_done(const std::string& state) {
  return state == "finished" || state.rfind("stopped", 0) == 0;
}

// Every cell of study 1 has a run that ended, and the report, its JSON and CSV are written.
void expect_study_ran_to_the_end(const std::string& database, const std::filesystem::path& dir,
                                 const std::string& workspace_flag, size_t cells) {
  auto store = store::Store::open(database);
  ASSERT_TRUE(store->study(1).has_value());
  EXPECT_EQ(store->study(1)->state, "finished");
  auto runs = store->study_cells(1);
  EXPECT_EQ(runs.size(), cells);
  for (const auto& [key, run_id] : runs) {
    std::string state = store->run(run_id)->state;
    EXPECT_TRUE(cell_done(state)) << key << ": " << state;
  }
  Result report = accelopt_in("report --study 1 --out " + (dir / "study.html").string() +
                                  " --json " + (dir / "study.json").string() + " --csv " +
                                  (dir / "study.csv").string() + workspace_flag,
                              dir);
  ASSERT_EQ(report.code, 0) << report.output;
  EXPECT_NE(read_file(dir / "study.html").find("echarts"), std::string::npos);
  Json json = Json::parse(read_file(dir / "study.json"));
  EXPECT_EQ(json["cells"].size(), cells);
  for (const Json& cell : json["cells"]) EXPECT_TRUE(cell_done(cell.value("state", ""))) << cell;
  EXPECT_EQ(read_file(dir / "study.csv").rfind("study,series,task,seed,run,state,point,", 0), 0u);
}

// An example study run small, on a fresh workspace: `cells` is its smoke grid's size.
void smoke(const std::filesystem::path& file, size_t cells) {
  TempDir dir;
  std::string workspace = (dir.path() / "ws").string();
  auto started = std::chrono::steady_clock::now();
  Result result =
      accelopt_in("study " + file.string() + " --smoke --workspace " + workspace, dir.path());
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(result.code, 0) << result.output;
  EXPECT_NE(result.output.find("smoke run (--smoke): seed 1 only"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find(fmt::format("{} cells", cells)), std::string::npos) << result.output;
  expect_study_ran_to_the_end(store::database_path(workspace).string(), dir.path(),
                              " --workspace " + workspace, cells);
  std::cout << file.filename().string() << " --smoke: " << cells << " cells in " << seconds
            << " s\n";
}

std::filesystem::path example(const std::string& name) {
  return std::filesystem::path(ACCELOPT_SOURCE_DIR) / "studies" / name;
}

TEST(ExampleStudies, BeamVsSamplingRunsToTheEndWithSmoke) {
  smoke(example("beam-vs-sampling.toml"), 2);  // silu x 2 variants
}

TEST(ExampleStudies, MemoryCapacityRunsToTheEndWithSmoke) {
  smoke(example("memory-capacity.toml"), 9);  // matmul x (5 variants + 4 warm)
}

TEST(ExampleStudies, AVsARunsToTheEndWithSmoke) {
  smoke(example("a-vs-a.toml"), 2);  // silu x 2 identical variants
}

TEST(ExampleStudies, SelfImprovementRunsToTheEndWithSmoke) {
  smoke(example("self-improvement.toml"), 3);  // adamw x (2 variants + 1 warm)
}

// As written it talks to a scripted model server at 127.0.0.1:8765; here the same file, with that
// address turned into the test server's and its tasks made absolute.
TEST(ExampleStudies, ModelsCheapVsStrongRunsToTheEndWithSmokeAgainstTheScriptedServer) {
  accelopt::testing::ScriptedModelServer server;
  TempDir dir;
  std::string text = read_file(example("models-cheap-vs-strong.toml"));
  for (size_t at = text.find("http://127.0.0.1:8765/v1"); at != std::string::npos;
       at = text.find("http://127.0.0.1:8765/v1")) {
    text.replace(at, std::string("http://127.0.0.1:8765/v1").size(), server.base_url());
  }
  for (size_t at = text.find("\"../bench/"); at != std::string::npos;
       at = text.find("\"../bench/")) {
    text.replace(at, 4, "\"" + std::string(ACCELOPT_SOURCE_DIR) + "/");
  }
  ASSERT_EQ(text.find("8765/v1"), std::string::npos) << text;
  std::filesystem::path file = dir.path() / "models-cheap-vs-strong.toml";
  write_file_atomic(file, text);
  smoke(file, 2);  // 1 task x 2 variants
  EXPECT_GT(server.count("planner"), 0);
}

// optimize's scale-out, for a study: every cell's evaluations go through the queue to a worker
// process, and the study ends as a local one would. Without PostgreSQL: a clear refusal.
using StudyScaleOut = store::PostgresTest;

TEST_F(StudyScaleOut, AStudyWithRemoteWorkersEvaluatesEveryCellOnAWorker) {
  TempDir dir;
  queue::Queue::open(url());  // the table exists before the worker polls it
  SpawnOptions options;
  options.argv = {testing::accelopt_binary(), "worker", "--db", url(), "--name", "study-worker",
                  "--idle-exit-seconds",      "20"};
  for (char** variable = environ; *variable != nullptr; ++variable) {
    options.environment.emplace_back(*variable);
  }
  options.output_file = dir.path() / "worker.log";
  Process worker = Process::spawn(options);

  std::filesystem::path file = dir.path() / "study.toml";
  write_file_atomic(file, "[study]\nname = \"remote\"\ntasks = [\"" +
                              std::string(ACCELOPT_SOURCE_DIR) +
                              "/bench/cpu/silu\"]\nworkload = \"small\"\nseeds = 1\n"
                              "[study.budget]\nmax_evaluations = 3\n"
                              "[[study.variant]]\nname = \"beam\"\n"
                              "search = { strategy = \"beam\" }\n"
                              "[[study.variant]]\nname = \"sampling\"\n"
                              "search = { strategy = \"repeated-sampling\" }\n"
                              "[search]\niterations = 1\ntiming_target = 0.1\n"
                              "timing_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  Result result = accelopt_in(
      "study " + file.string() + " --db " + quoted(url()) + " --remote-workers", dir.path());
  ASSERT_EQ(result.code, 0) << result.output << read_file(dir.path() / "worker.log");
  expect_study_ran_to_the_end(url(), dir.path(), " --db " + quoted(url()), 2);
  auto store = store::Store::open(url());
  int64_t evaluations = 0;
  for (const auto& [key, run_id] : store->study_cells(1)) {
    EXPECT_TRUE(store->run(run_id)->config.value("remote_workers", false)) << key;
    EXPECT_GE(store->evaluation_count(run_id), 1) << key;
    evaluations += store->evaluation_count(run_id);
  }
  // The cells' kernels, the baselines among them, were evaluated by the worker (a request the
  // queue already answered is not queued again, so at least the distinct ones).
  EXPECT_GE(std::stoi(psql("SELECT count(*) FROM evaluation_queue WHERE state = 'done' AND "
                           "worker = 'study-worker'")),
            3)
      << read_file(dir.path() / "worker.log");
  EXPECT_GE(evaluations, 2);
  EXPECT_EQ(psql("SELECT count(*) FROM evaluation_queue WHERE state <> 'done'"), "0");
  EXPECT_TRUE(std::filesystem::exists(dir.path() / ".accelopt" / "studies"));
  worker.wait(2min);

  Result sqlite = accelopt_in("study " + file.string() + " --workspace " +
                                  (dir.path() / "ws").string() + " --remote-workers",
                              dir.path());
  EXPECT_EQ(sqlite.code, 2) << sqlite.output;
  EXPECT_NE(sqlite.output.find("--remote-workers needs a shared PostgreSQL"), std::string::npos)
      << sqlite.output;
}

}  // namespace
}  // namespace accelopt::cli
