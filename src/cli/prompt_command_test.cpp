// `accelopt prompt` on the real binary: what each role would be sent, rendered by the agents' own
// code on this machine's CPU platform, with the workspace's memory for the planner and real
// verdicts for the fixer and the summarizer (--evaluate judges the kernels first).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include "common/files.h"
#include "common/json.h"
#include "memory/memory.h"
#include "store/store.h"

namespace accelopt::cli {
namespace {

struct Result {
  int code = 0;
  std::string output;
};

class PromptCommand : public ::testing::Test {
 protected:
  Result accelopt(const std::string& arguments) {
    std::filesystem::path output = dir_.path() / "output.txt";
    std::string command = std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt " + arguments +
                          " --task " + ACCELOPT_SOURCE_DIR + "/bench/cpu/silu --workload small" +
                          " --workspace " + workspace_.string() + " > " + output.string() + " 2>&1";
    int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, read_file(output)};
  }

  // A kernel that compiles and computes silu a little wrong.
  std::filesystem::path wrong_kernel() {
    std::string source = read_file(ACCELOPT_SOURCE_DIR "/bench/cpu/silu/baseline.cpp");
    std::string exp = "std::exp(-x[i0 + i])";
    size_t at = source.find(exp);
    EXPECT_NE(at, std::string::npos);
    source.insert(at + exp.size(), " + 0.01f");
    std::filesystem::path path = dir_.path() / "wrong.cpp";
    write_file_atomic(path, source);
    return path;
  }

  static bool has(const Result& result, const std::string& part) {
    return result.output.find(part) != std::string::npos;
  }

  TempDir dir_;
  std::filesystem::path workspace_ = dir_.path() / "ws";
};

TEST_F(PromptCommand, ThePlannerIsToldTheMachineTheTaskTheKernelAndTheMemory) {
  Result empty = accelopt("prompt --role planner");
  ASSERT_EQ(empty.code, 0) << empty.output;
  EXPECT_TRUE(has(empty, "no accelopt database at")) << empty.output;
  EXPECT_TRUE(has(empty, "==== system ====\nYou are the planner of accelopt"));
  EXPECT_TRUE(has(empty, "## The machine: a CPU"));
  EXPECT_TRUE(has(empty, "-std=c++20"));
  EXPECT_TRUE(has(empty, "==== user ====\n## The task: silu"));
  EXPECT_TRUE(has(empty, "How the harness checks a kernel"));
  EXPECT_TRUE(has(empty, "This kernel has not been measured yet."));
  EXPECT_TRUE(has(empty, "The memory holds no lessons for this task yet."));

  {
    auto store = store::Store::open(store::database_path(workspace_));
    roles::Insight insight{
        "Vectorize the exponential", "A polynomial exp in AVX-512.", "", "", 3.1, 2.9, 3.3, true};
    store::MemoryEntryRecord entry;
    entry.task = "silu";
    entry.op_type = "activation";
    entry.speedup = 3.1, entry.speedup_low = 2.9, entry.speedup_high = 3.3;
    entry.insight = memory::insight_to_json(insight);
    store->add_memory_entry(entry);
  }
  Result remembered = accelopt("prompt --role planner --part user");
  ASSERT_EQ(remembered.code, 0) << remembered.output;
  EXPECT_TRUE(has(remembered, "Vectorize the exponential")) << remembered.output;
  EXPECT_FALSE(has(remembered, "==== system ===="));
  Result forgotten = accelopt("prompt --role planner --part user --no-memory");
  EXPECT_FALSE(has(forgotten, "Vectorize the exponential"));
}

TEST_F(PromptCommand, TheFixerIsToldWhatTheHarnessFound) {
  Result refused = accelopt("prompt --role fixer --kernel " + wrong_kernel().string());
  EXPECT_NE(refused.code, 0);
  EXPECT_TRUE(has(refused, "add --evaluate")) << refused.output;
  Result passed = accelopt("prompt --role fixer --evaluate");
  EXPECT_NE(passed.code, 0);
  EXPECT_TRUE(has(passed, "the fixer is asked only about a kernel that failed")) << passed.output;

  Result fixer = accelopt("prompt --role fixer --evaluate --plan 'Add a bias' --kernel " +
                          wrong_kernel().string() + " --json");
  ASSERT_EQ(fixer.code, 0) << fixer.output;
  Json prompt = Json::parse(fixer.output.substr(fixer.output.find("{\n")));
  EXPECT_EQ(prompt["role"], "fixer");
  std::string user = prompt["user"];
  EXPECT_NE(user.find("Status: INCORRECT_NUMERICAL"), std::string::npos) << user;
  EXPECT_NE(user.find("Add a bias"), std::string::npos);
  EXPECT_NE(user.find("+ 0.01f"), std::string::npos);
}

TEST_F(PromptCommand, TheSummarizerIsToldTheMeasuredPair) {
  Result summarizer = accelopt("prompt --role summarizer --evaluate --part user --plan 'Same'");
  ASSERT_EQ(summarizer.code, 0) << summarizer.output;
  EXPECT_TRUE(has(summarizer, "## The measurement")) << summarizer.output;
  EXPECT_TRUE(has(summarizer, "95% interval"));
}

TEST_F(PromptCommand, BadArgumentsAreRefused) {
  EXPECT_NE(accelopt("prompt --role plannr").code, 0);
  Result tuner = accelopt("prompt --role planner --agents tuner");
  EXPECT_NE(tuner.code, 0);
  EXPECT_TRUE(has(tuner, "has no prompts")) << tuner.output;
  Result platform = accelopt("prompt --role planner --platform nope");
  EXPECT_NE(platform.code, 0);
  EXPECT_TRUE(has(platform, "nope")) << platform.output;
}

}  // namespace
}  // namespace accelopt::cli
