// End to end (slow): a task without a baseline (its baseline.cpp is import's stub) through the real
// `accelopt` binary, the CPU platform and the scripted model server. With a model the executor
// writes a naive kernel, the harness checks it, the fixer repairs a wrong one, and the run starts
// from the first that passes (kept in the run's records, saved by --save-baseline, replayed from
// cassettes). Without a model optimize, eval and bench refuse the task, saying how to give it one.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

#include "cli/cli_test_support.h"
#include "common/files.h"
#include "common/json.h"
#include "scripted_model_server.h"
#include "store/store.h"
#include "task/baseline_stub.h"

namespace accelopt::cli {
namespace {

namespace axpy = accelopt::testing::axpy;
using accelopt::testing::kernel_answer;
using accelopt::testing::ScriptedModelServer;

using Result = testing::CommandOutput;

// tests/data/tasks/axpy with its baseline replaced by a stub as `accelopt task import` writes one:
// the marker, the prototype, zeros. `marker_only`: the marker line alone, as a person writes it to
// a task that had no baseline file (load_task's error says so).
std::filesystem::path stub_task(const std::filesystem::path& scratch, bool marker_only = false) {
  std::filesystem::path source =
      std::filesystem::path(ACCELOPT_SOURCE_DIR) / "tests/data/tasks/axpy";
  std::filesystem::path task = scratch / "axpy";
  std::filesystem::create_directories(task);
  for (const char* name : {"definition.json", "reference.cpp"}) {
    std::filesystem::copy_file(source / name, task / name);
  }
  if (marker_only) {
    write_file_atomic(task / "baseline.cpp", std::string(task::kBaselineStubMarker) + "\n");
    return task;
  }
  write_file_atomic(task / "baseline.cpp",
                    std::string(task::kBaselineStubMarker) +
                        "\n#include <cstdint>\n\n#include \"accelopt_task.h\"\n\n"
                        "extern \"C\" void kernel(const float* __restrict x, const float* "
                        "__restrict y, float* __restrict out) {\n"
                        "  for (std::int64_t i = 0; i < N; ++i) out[i] = 0.0f;\n}\n");
  return task;
}

std::string search_toml(int iterations) {
  return "\n[search]\npreset = \"quick\"\niterations = " + std::to_string(iterations) +
         "\nbeam_width = 1\nplans = 1\nimplementations = 1\nagent_concurrency = 1\n"
         "timing_target = 0.1\ntiming_budget_seconds = 1.0\ntiming_min_pairs = 4\n";
}

// The run's baseline candidate (i0/baseline) as the store keeps it.
store::CandidateRecord baseline_of(const std::filesystem::path& workspace) {
  auto database = store::Store::open(store::database_path(workspace));
  auto baseline = database->candidate_by_key(1, "i0/baseline");
  EXPECT_TRUE(baseline.has_value());
  return baseline.value_or(store::CandidateRecord{});
}

constexpr const char* kStubHeading = "## The stub to replace";

TEST(NaiveBaseline, TheRunStartsFromTheKernelTheExecutorWrote) {
  ScriptedModelServer server;
  server.on("executor", kStubHeading, kernel_answer(axpy::slower()));
  TempDir dir;
  std::filesystem::path task = stub_task(dir.path()), workspace = dir.path() / "ws";
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config, server.config_toml() + search_toml(1));
  Result optimize =
      testing::run_accelopt("optimize --task " + task.string() + " --config " + config.string() +
                                " --workspace " + workspace.string() + " --save-baseline",
                            dir.path());
  ASSERT_EQ(optimize.code, 0) << optimize.output;
  EXPECT_NE(optimize.output.find("naive baseline (attempt 1): PASSED"), std::string::npos)
      << optimize.output;

  // The executor was asked from its own templates, with the task's reference and stub.
  std::vector<accelopt::testing::ScriptedRequest> executor = server.requests("executor");
  ASSERT_GE(executor.size(), 2u);
  EXPECT_NE(executor[0].user.find(kStubHeading), std::string::npos) << executor[0].user;
  EXPECT_NE(executor[0].user.find("The reference implementation"), std::string::npos);
  EXPECT_NE(executor[0].user.find(std::string(task::kBaselineStubMarker)), std::string::npos);
  EXPECT_NE(executor[0].system.find("This task has no kernel yet"), std::string::npos);
  // Iteration 1 optimized the written kernel, not the stub.
  EXPECT_EQ(accelopt::testing::code_after(executor[1].user, "## The current kernel"),
            axpy::slower())
      << executor[1].user;
  EXPECT_EQ(server.count("fixer"), 0);

  store::CandidateRecord baseline = baseline_of(workspace);
  EXPECT_EQ(baseline.source, axpy::slower());
  EXPECT_EQ(baseline.author, "llm:scripted-model");
  EXPECT_NE(baseline.plan.dump().find("written by the executor (attempt 1)"), std::string::npos)
      << baseline.plan.dump();
  // The call is in the ledger as the executor's, with its tokens.
  auto database = store::Store::open(store::database_path(workspace));
  int executor_calls = 0;
  for (const CallRecord& call : database->calls("1")) {
    if (call.role == "executor") {
      ++executor_calls;
      EXPECT_GT(call.prompt_tokens, 0);
    }
  }
  EXPECT_EQ(executor_calls, static_cast<int>(executor.size()));
  // --save-baseline made it the task's baseline.
  EXPECT_EQ(read_file(task / "baseline.cpp"), axpy::slower());
}

TEST(NaiveBaseline, TheFixerRepairsAWrongKernelWhichBecomesTheBaseline) {
  ScriptedModelServer server;
  server.on("executor", kStubHeading, kernel_answer(axpy::wrong()));
  server.on("fixer", "", kernel_answer(axpy::slower()));
  TempDir dir;
  std::filesystem::path task = stub_task(dir.path(), true), workspace = dir.path() / "ws";
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config, server.config_toml() + search_toml(0));
  Result optimize =
      testing::run_accelopt("optimize --task " + task.string() + " --config " + config.string() +
                                " --workspace " + workspace.string(),
                            dir.path());
  ASSERT_EQ(optimize.code, 0) << optimize.output;
  EXPECT_NE(optimize.output.find("naive baseline (attempt 1): INCORRECT"), std::string::npos)
      << optimize.output;
  EXPECT_NE(optimize.output.find("naive baseline (attempt 1, repair 1): PASSED"), std::string::npos)
      << optimize.output;
  ASSERT_EQ(server.count("fixer"), 1);
  std::string fixer = server.requests("fixer")[0].user;
  EXPECT_EQ(accelopt::testing::code_after(fixer, "## The failed kernel"), axpy::wrong()) << fixer;
  EXPECT_NE(fixer.find("INCORRECT"), std::string::npos) << fixer;
  store::CandidateRecord baseline = baseline_of(workspace);
  EXPECT_EQ(baseline.source, axpy::slower());
  EXPECT_NE(baseline.plan.dump().find("repaired 1 time by the fixer"), std::string::npos)
      << baseline.plan.dump();
  // Without --save-baseline the task keeps its stub.
  EXPECT_TRUE(task::is_baseline_stub(read_file(task / "baseline.cpp")));
}

// Recorded once, the same run replays from the cassettes with no server at all.
TEST(NaiveBaseline, ARecordedRunReplaysWithoutAServer) {
  TempDir dir;
  std::filesystem::path task = stub_task(dir.path());
  std::string recorded_config;
  {
    ScriptedModelServer server;
    server.on("executor", kStubHeading, kernel_answer(axpy::slower()));
    recorded_config = server.config_toml() + search_toml(0) +
                      "\n[replay]\nmode = \"record\"\ndir = \"cassettes\"\n";
    write_file_atomic(dir.path() / "record.toml", recorded_config);
    Result record = testing::run_accelopt("optimize --task " + task.string() + " --config " +
                                              (dir.path() / "record.toml").string() +
                                              " --workspace " + (dir.path() / "recorded").string(),
                                          dir.path());
    ASSERT_EQ(record.code, 0) << record.output;
  }  // the server is gone
  std::string replay_config = recorded_config;
  replay_config.replace(replay_config.find("mode = \"record\""), 15, "mode = \"replay\"");
  write_file_atomic(dir.path() / "replay.toml", replay_config);
  Result replay = testing::run_accelopt("optimize --task " + task.string() + " --config " +
                                            (dir.path() / "replay.toml").string() +
                                            " --workspace " + (dir.path() / "replayed").string(),
                                        dir.path());
  ASSERT_EQ(replay.code, 0) << replay.output;
  EXPECT_EQ(baseline_of(dir.path() / "replayed").source, axpy::slower());
  auto database = store::Store::open(store::database_path(dir.path() / "replayed"));
  std::vector<CallRecord> calls = database->calls("1");
  ASSERT_EQ(calls.size(), 1u);  // the executor's kernel
  EXPECT_EQ(calls[0].role, "executor");
  EXPECT_TRUE(calls[0].replayed);
}

// A resumed run (here a finished one extended by an iteration) times its candidates against the
// baseline it recorded, not against the stub still in the task's folder: a kernel eight times
// lighter than the naive one is several times faster than it, and no faster than the stub.
TEST(NaiveBaseline, AResumedRunIsTimedAgainstItsRecordedBaseline) {
  ScriptedModelServer server;
  server.on("executor", kStubHeading, kernel_answer(axpy::slower()));
  server.on("executor", "## The current kernel", kernel_answer(axpy::faster()));
  TempDir dir;
  std::filesystem::path task = stub_task(dir.path()), workspace = dir.path() / "ws";
  std::filesystem::path config = dir.path() / "accelopt.toml";
  write_file_atomic(config, server.config_toml() + search_toml(0));
  Result optimize =
      testing::run_accelopt("optimize --task " + task.string() + " --config " + config.string() +
                                " --workspace " + workspace.string(),
                            dir.path());
  ASSERT_EQ(optimize.code, 0) << optimize.output;
  Result resume = testing::run_accelopt("resume 1 --iterations 1 --workspace " + workspace.string(),
                                        dir.path());
  ASSERT_EQ(resume.code, 0) << resume.output;
  EXPECT_EQ(server.requests("executor").size(), 2u);
  auto database = store::Store::open(store::database_path(workspace));
  std::optional<kernel::Verdict> faster;
  for (const store::CandidateRecord& candidate : database->candidates(1)) {
    if (candidate.iteration == 1 && candidate.source == axpy::faster()) {
      faster = database->trace(candidate.id)->verdict;
    }
  }
  ASSERT_TRUE(faster) << resume.output;
  ASSERT_TRUE(faster->passed() && faster->timing) << faster->message;
  EXPECT_GT(faster->timing->speedup, 2.0) << faster->message;
}

TEST(NaiveBaseline, WithoutAModelTheTaskIsRefusedWithTheWaysOut) {
  TempDir dir;
  {  // no baseline file at all: load_task's error names the stub marker as a way out
    std::filesystem::path bare = stub_task(dir.path() / "bare");
    std::filesystem::remove(bare / "baseline.cpp");
    Result missing = testing::run_accelopt("eval --task " + bare.string(), dir.path());
    EXPECT_NE(missing.code, 0) << missing.output;
    EXPECT_NE(missing.output.find((bare / "baseline.cpp").string() + ": missing"),
              std::string::npos)
        << missing.output;
    EXPECT_NE(missing.output.find(std::string(task::kBaselineStubMarker)), std::string::npos)
        << missing.output;
  }
  std::filesystem::path task = stub_task(dir.path()), workspace = dir.path() / "ws";
  Result optimize = testing::run_accelopt(
      "optimize --task " + task.string() + " --workspace " + workspace.string(), dir.path());
  EXPECT_NE(optimize.code, 0) << optimize.output;
  std::string expected = (task / "baseline.cpp").string() + ": the task has no baseline yet";
  EXPECT_NE(optimize.output.find(expected), std::string::npos) << optimize.output;
  EXPECT_NE(optimize.output.find("or configure a model"), std::string::npos) << optimize.output;
  EXPECT_FALSE(std::filesystem::exists(workspace)) << "refused before any database";

  Result eval = testing::run_accelopt("eval --task " + task.string(), dir.path());
  EXPECT_NE(eval.code, 0) << eval.output;
  EXPECT_NE(eval.output.find(expected), std::string::npos) << eval.output;

  Result bench =
      testing::run_accelopt("bench --suite " + dir.path().string() + " --tasks axpy", dir.path());
  EXPECT_NE(bench.code, 0) << bench.output;
  EXPECT_NE(bench.output.find(expected), std::string::npos) << bench.output;

  // What the executor is sent, for a person tuning the templates; nothing is sent.
  Result prompt =
      testing::run_accelopt("prompt --task " + task.string() + " --role baseline", dir.path());
  EXPECT_EQ(prompt.code, 0) << prompt.output;
  EXPECT_NE(prompt.output.find(kStubHeading), std::string::npos) << prompt.output;
  EXPECT_NE(prompt.output.find("This task has no kernel yet"), std::string::npos);

  // A kernel of one's own still evaluates: timed against itself, since the stub computes nothing.
  write_file_atomic(dir.path() / "naive.cpp", axpy::slower());
  Result own =
      testing::run_accelopt("eval --task " + task.string() + " --kernel " +
                                (dir.path() / "naive.cpp").string() + " --budget 2 --target 0.2",
                            dir.path());
  EXPECT_EQ(own.code, 0) << own.output;
  EXPECT_NE(own.output.find("PASSED"), std::string::npos) << own.output;
}

// axpy as a FlashInfer-Bench definition brings it: a NumPy reference, no baseline.
constexpr const char* kAxpyDefinition = R"json({
  "name": "axpy", "op_type": "elementwise", "description": "out = 2 * x + y",
  "axes": {"N": {"type": "var"}},
  "inputs": {"x": {"dtype": "float32", "shape": ["N"]}, "y": {"dtype": "float32", "shape": ["N"]}},
  "outputs": {"out": {"dtype": "float32", "shape": ["N"]}},
  "reference": "import numpy as np\n\ndef run(x, y):\n    return (2 * x + y).astype(np.float32)\n"
})json";

// `task import --config`: the executor writes the baseline from reference.py and the harness
// checks it, as `optimize --save-baseline` does; one that never passes leaves the stub.
TEST(NaiveBaseline, ImportWithAModelWritesTheBaselineOnlyIfItPasses) {
  TempDir dir;
  write_file_atomic(dir.path() / "axpy.json", kAxpyDefinition);
  {
    ScriptedModelServer server;
    server.on("executor", kStubHeading, kernel_answer(axpy::slower()));
    write_file_atomic(dir.path() / "accelopt.toml", server.config_toml() + search_toml(0));
    Result imported =
        testing::run_accelopt("task import " + (dir.path() / "axpy.json").string() +
                                  " --no-flops --out " + (dir.path() / "written").string() +
                                  " --config " + (dir.path() / "accelopt.toml").string() +
                                  " --workspace " + (dir.path() / "ws").string(),
                              dir.path());
    ASSERT_EQ(imported.code, 0) << imported.output;
    EXPECT_NE(imported.output.find("naive baseline (attempt 1): PASSED"), std::string::npos)
        << imported.output;
    EXPECT_NE(imported.output.find("baseline.cpp: written by the executor"), std::string::npos)
        << imported.output;
    EXPECT_EQ(read_file(dir.path() / "written/baseline.cpp"), axpy::slower());
    EXPECT_EQ(baseline_of(dir.path() / "ws").author, "llm:scripted-model");
  }
  {
    ScriptedModelServer server;
    server.on("executor", kStubHeading, kernel_answer(axpy::wrong()));
    server.on("fixer", "", kernel_answer(axpy::wrong()));
    write_file_atomic(dir.path() / "wrong.toml", server.config_toml() + search_toml(0));
    Result imported = testing::run_accelopt(
        "task import " + (dir.path() / "axpy.json").string() + " --no-flops --out " +
            (dir.path() / "refused").string() + " --config " +
            (dir.path() / "wrong.toml").string() + " --workspace " + (dir.path() / "ws2").string(),
        dir.path());
    EXPECT_NE(imported.code, 0) << imported.output;
    EXPECT_NE(imported.output.find("no kernel the executor wrote passed"), std::string::npos)
        << imported.output;
    EXPECT_TRUE(task::is_baseline_stub(read_file(dir.path() / "refused/baseline.cpp")));
    EXPECT_GE(server.count("fixer"), 1);
  }
}

}  // namespace
}  // namespace accelopt::cli
