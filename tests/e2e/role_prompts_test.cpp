// What every role is told on every platform, rendered by the agents' own code (agents::*_prompt,
// what `accelopt prompt` prints) from the description each platform builds: the CPU from this
// machine with ceilings given here, CUDA from a recorded H200 probe (no GPU needed), an evaluator
// command from its file. Each prompt must name its own machine and rules and nothing of another's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agents/llm_agents.h"
#include "common/files.h"
#include "platform/command/command_config.h"
#include "platform/command/command_entry.h"
#include "platform/cpu/compiler.h"
#include "platform/cpu/cpu_entry.h"
#include "platform/cpu/rule_table.h"
#include "platform/cuda/cuda_entry.h"
#include "platform/cuda/gpu_ceilings.h"
#include "platform/cuda/nvcc_compiler.h"
#include "platform/cuda/source_rules.h"
#include "task/task.h"

namespace accelopt {
namespace {

const std::string kSource = ACCELOPT_SOURCE_DIR;

struct Platform {
  std::string name;
  agents::LlmAgentOptions options;
  task::Task task;
  std::vector<std::string> must_say;
  std::vector<std::string> must_not_say;
  std::vector<std::string> headers = {};  // the rule table's: told to the roles that write code
  // The executor gets the header list summarized (each of its calls would repeat it whole), the
  // fixer and the baseline's writer whole (issue 48); `summary` is what the executor must read.
  std::string header_summary = "";
  std::string listed_only = "";  // a header named in the whole list, never in the summary
};

// A verdict as the search hands it over: timed, scored and profiled.
kernel::Verdict passed_verdict() {
  kernel::Verdict verdict;
  verdict.status = kernel::Status::kPassed;
  kernel::Timing timing;
  timing.latency_seconds = 0.0042, timing.latency_low = 0.0041, timing.latency_high = 0.0043;
  timing.speedup = 1.3, timing.speedup_low = 1.2, timing.speedup_high = 1.4;
  verdict.timing = timing;
  kernel::RooflineScore score;
  score.percent_of_peak = 17.5;
  score.bound = "memory";
  verdict.roofline = score;
  return verdict;
}

std::vector<std::string> header_spellings(const std::vector<platform::SourceRule>& rules) {
  std::vector<std::string> spellings;
  for (const platform::SourceRule* rule : platform::rules_of(rules, platform::RuleKind::kHeader)) {
    spellings.push_back("`" + (rule->example.empty() ? "<" + rule->spelling + ">" : rule->example) +
                        "`");
  }
  return spellings;
}

Platform cpu_platform(const std::filesystem::path& cache) {
  platform::cpu::MachinePeaks peaks;
  peaks.fma_gflops = 170, peaks.vector_gflops = 85;
  peaks.bandwidth = {{4 << 10, 400}, {1 << 20, 120}, {64 << 20, 15}, {256 << 20, 15}};
  platform::cpu::CompilerOptions compiler_options;
  compiler_options.cache_directory = cache;
  platform::cpu::Compiler compiler(compiler_options);
  Platform cpu{"cpu", {}, task::load_task(kSource + "/bench/cpu/silu"), {}, {}};
  cpu.options.machine =
      platform::cpu::describe_machine(platform::cpu::describe_cpu(), peaks, compiler);
  std::string version = compiler.version();
  cpu.must_say = {"## The machine: a CPU",
                  version.substr(0, version.find('\n')),
                  "-std=c++20",
                  "GFLOP/s",
                  "GB/s at this task's working set",
                  "one core",
                  "At run time:"};
  cpu.headers = header_spellings(platform::cpu::kernel_rules());
  cpu.headers.push_back("__builtin_prefetch: allowed");
  cpu.header_summary = "the C++ standard library (";
  cpu.listed_only = "`<valarray>`";
  cpu.must_not_say = {"CUDA", "nvcc", "__global__"};
  return cpu;
}

Platform cuda_platform() {
  Json recorded =
      Json::parse(read_file(kSource + "/src/platform/cuda/testdata/h200_description.json"));
  Platform cuda{"cuda", {}, task::load_task(kSource + "/bench/cuda/silu", ".cu"), {}, {}};
  cuda.options.platform = "cuda";
  cuda.options.machine = platform::cuda::describe_machine(
      platform::cuda::parse_gpu_probe(recorded["probe_output"]), recorded["nvcc_version"],
      platform::cuda::nvcc_flags(platform::cuda::NvccOptions{}));
  cuda.must_say = {"an NVIDIA GPU (CUDA)",
                   "NVIDIA H200",
                   "compute capability 9.0",
                   "132 SMs",
                   "nvcc 12.6",
                   "GB/s at this task's working set"};
  cuda.headers = header_spellings(platform::cuda::kernel_rules());
  cuda.must_not_say = {"AVX", "x86", "immintrin", "omp.h", "g++", "EPYC"};
  return cuda;
}

Platform command_platform() {
  Json config = Json::parse(R"({
    "name": "trn-box", "argv": ["/bin/true"], "correctness": "values",
    "device": {"name": "trn2.48xlarge", "kind": "AWS Trainium 2", "toolchain": "Neuron SDK 2.21"},
    "ceilings": {"fma_gflops": 80000, "vector_gflops": 1200, "scope": "whole_device",
                 "bandwidth": [{"working_set_bytes": 1048576, "gbytes_per_second": 2900}]}})");
  auto options = platform::command::parse_command_config(config, "/", "trn.json");
  Platform command{"command", {}, task::load_task(kSource + "/bench/cpu/silu"), {}, {}};
  command.options.platform = options.prompt_fragment;
  command.options.machine = platform::command::describe_machine(options);
  command.must_say = {"trn2.48xlarge", "AWS Trainium 2", "Neuron SDK 2.21",
                      "GB/s at this task's working set"};
  command.must_not_say = {"AVX", "x86", "immintrin", "g++", "EPYC", "nvcc"};
  return command;
}

class RolePrompts : public testing::Test {
 protected:
  TempDir cache_{"accelopt-role-prompts-test"};
};

TEST_F(RolePrompts, EveryRoleOnEveryPlatformIsToldItsOwnMachineAndRules) {
  std::vector<Platform> platforms;
  platforms.push_back(cpu_platform(cache_.path()));
  platforms.push_back(cuda_platform());
  platforms.push_back(command_platform());
  for (const Platform& platform : platforms) {
    const task::Task& task = platform.task;
    roles::KernelView kernel{&task, "", read_file(task.baseline_path()), passed_verdict()};
    roles::KernelView failed = kernel;
    failed.verdict->status = kernel::Status::kCompileError;
    failed.verdict->message = "the kernel does not compile";
    failed.verdict->log = "kernel:3:1: error: expected ';'";
    roles::Plan plan{"PLAN-TEXT: fuse the two loops", "llm:test"};
    roles::RewritePair pair{kernel, kernel, plan, 1.3, 1.2, 1.4};
    std::vector<std::pair<std::string, agents::RolePrompt>> prompts = {
        {"planner", agents::planner_prompt(platform.options, kernel, {}, 4)},
        {"executor", agents::executor_prompt(platform.options, kernel, plan, 2)},
        {"fixer", agents::fixer_prompt(platform.options, failed, plan)},
        {"summarizer", agents::summarizer_prompt(platform.options, pair)}};
    for (const auto& [role, prompt] : prompts) {
      SCOPED_TRACE(platform.name + " " + role);
      std::string text = prompt.system + "\n" + prompt.user;
      EXPECT_NE(prompt.system.find("You are the " + role + " of accelopt"), std::string::npos);
      EXPECT_NE(text.find(task.name), std::string::npos);
      EXPECT_NE(text.find(kernel.source.substr(0, 200)), std::string::npos);
      EXPECT_EQ(text.find("{{"), std::string::npos) << text;
      for (const std::string& part : platform.must_say) {
        EXPECT_NE(text.find(part), std::string::npos) << part;
      }
      bool writes_code = role == "executor" || role == "fixer";
      bool summarized = role == "executor" && !platform.header_summary.empty();
      if (writes_code && !summarized) {
        for (const std::string& header : platform.headers) {
          EXPECT_NE(text.find(header), std::string::npos) << header;
        }
      }
      if (summarized) {
        EXPECT_NE(text.find(platform.header_summary), std::string::npos);
        EXPECT_EQ(text.find(platform.listed_only), std::string::npos);
        EXPECT_NE(text.find("The whole list is shown to the fixer"), std::string::npos);
      }
      EXPECT_EQ(text.find("Headers a kernel may include") != std::string::npos,
                writes_code && !platform.headers.empty());
      for (const std::string& part : platform.must_not_say) {
        EXPECT_EQ(text.find(part), std::string::npos) << part << "\n" << text;
      }
      if (role != "summarizer") {
        EXPECT_NE(text.find("How the harness checks a kernel"), std::string::npos);
        EXPECT_NE(text.find("may be NaN or ±inf only where the reference's is the same"),
                  std::string::npos);
      }
      if (role != "planner") {
        EXPECT_NE(text.find("PLAN-TEXT"), std::string::npos);
      }
    }
    EXPECT_NE(prompts[2].second.user.find("expected ';'"), std::string::npos);
  }
}

}  // namespace
}  // namespace accelopt
