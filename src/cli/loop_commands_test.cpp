// End to end (slow): the real `accelopt` binary optimizes the axpy test task with the tuner, on the
// real CPU platform, with a tiny budget in a temporary workspace; then `runs`, `show`, `export` and
// `memory list` read the run back.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>

#include "common/files.h"
#include "common/json.h"
#include "scripted_model_server.h"

namespace accelopt::cli {
namespace {

struct Result {
  int code = 0;
  std::string output;
};

Result accelopt(const std::string& arguments, const std::filesystem::path& scratch) {
  std::filesystem::path output = scratch / "output.txt";
  std::string command = std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt " + arguments +
                        " > " + output.string() + " 2>&1";
  int status = std::system(command.c_str());
  Result result;
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  result.output = read_file(output);
  return result;
}

TEST(OptimizeEndToEnd, TunerOnAxpyThenShowAndExport) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config,
                    "[search]\npreset = \"quick\"\niterations = 2\nmax_evaluations = 4\n"
                    "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n");
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/tests/data/tasks/axpy";
  // The default workload (N = 2^20): the small one is below what the roofline check can time.
  Result optimize = accelopt("optimize --task " + task + " --config " +
                                 config.string() + " --workspace " + workspace.string(),
                             dir.path());
  ASSERT_EQ(optimize.code, 0) << optimize.output;
  EXPECT_NE(optimize.output.find("no model configured: optimizing with the built-in tuner"),
            std::string::npos)
      << optimize.output;
  EXPECT_NE(optimize.output.find("run 1: "), std::string::npos) << optimize.output;
  EXPECT_NE(optimize.output.find("% of peak"), std::string::npos) << optimize.output;
  EXPECT_NE(optimize.output.find("iteration 1/2"), std::string::npos) << optimize.output;  // progress

  Result runs = accelopt("runs --workspace " + workspace.string(), dir.path());
  ASSERT_EQ(runs.code, 0) << runs.output;
  EXPECT_NE(runs.output.find("axpy"), std::string::npos) << runs.output;

  Result show = accelopt("show 1 --workspace " + workspace.string(), dir.path());
  ASSERT_EQ(show.code, 0) << show.output;
  for (const char* part : {"iteration", "best kernels", "lineage of the best", "memory entries made",
                           "cost by role", "#1 baseline"}) {
    EXPECT_NE(show.output.find(part), std::string::npos) << part << "\n" << show.output;
  }

  std::filesystem::path out = dir.path() / "export";
  Result exported = accelopt("export 1 --out " + out.string() + " --workspace " + workspace.string(),
                             dir.path());
  ASSERT_EQ(exported.code, 0) << exported.output;
  EXPECT_TRUE(std::filesystem::exists(out / "best.cpp"));
  Json traces = Json::parse(read_file(out / "traces.json"));
  ASSERT_GE(traces.size(), 2u);
  EXPECT_EQ(traces[0]["kind"], "baseline");
  EXPECT_EQ(traces[0]["verdict"]["status"], "PASSED");
  Json run = Json::parse(read_file(out / "run.json"));
  EXPECT_EQ(run["config"]["task"], "axpy");

  Result memory = accelopt("memory list --workspace " + workspace.string(), dir.path());
  EXPECT_EQ(memory.code, 0) << memory.output;
  Result unknown = accelopt("show 7 --workspace " + workspace.string(), dir.path());
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("there is no run 7"), std::string::npos) << unknown.output;
}

// The LLM agents over HTTP against the scripted model server: the executor answers a faster kernel
// and a broken one, the fixer repairs it; the faster kernel enters the beam, every attempt is in the
// lineage and every model call in the database's ledger.
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
  std::string task = std::string(ACCELOPT_SOURCE_DIR) + "/tests/data/tasks/axpy";
  Result optimize = accelopt("optimize --agents llm --task " + task + " --config " +
                                 config.string() + " --workspace " + workspace.string(),
                             dir.path());
  ASSERT_EQ(optimize.code, 0) << optimize.output;
  EXPECT_GE(server.count("planner"), 1);
  EXPECT_EQ(server.count("executor"), 2);
  EXPECT_EQ(server.count("fixer"), 1);

  std::filesystem::path out = dir.path() / "export";
  ASSERT_EQ(accelopt("export 1 --out " + out.string() + " --workspace " + workspace.string(),
                     dir.path()).code, 0);
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
  // The faster kernel passed and took the beam's free place (whether it beats the baseline beyond
  // noise on a memory-bound task on a shared machine is not this test's business).
  Json run = Json::parse(read_file(out / "run.json"));
  ASSERT_EQ(run["best"].size(), 2u) << run.dump(1);

  Result show = accelopt("show 1 --workspace " + workspace.string(), dir.path());
  EXPECT_NE(show.output.find("planner"), std::string::npos) << show.output;  // cost by role
  EXPECT_NE(show.output.find("llm:"), std::string::npos) << show.output;
}

}  // namespace
}  // namespace accelopt::cli
