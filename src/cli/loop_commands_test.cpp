// End to end (slow): the real `accelopt` binary optimizes the axpy test task with the tuner, on the
// real CPU platform, with a tiny budget in a temporary workspace; then `runs`, `show`, `export` and
// `memory list` read the run back.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "common/files.h"
#include "common/json.h"

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

}  // namespace
}  // namespace accelopt::cli
