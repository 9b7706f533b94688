// The agents' CUDA platform fragment (prompts/platform/cuda.mustache) renders with the GPU's
// figures, through the same prompt library the LLM agents use. No GPU here: the description is
// built from a recorded probe (testdata/h200_description.json) by the platform's own code path.
#include <gtest/gtest.h>

#include "agents/prompt_variables.h"
#include "agents/prompts.h"
#include "common/files.h"
#include "platform/cuda/cuda_entry.h"
#include "platform/cuda/gpu_ceilings.h"
#include "platform/cuda/nvcc_compiler.h"
#include "platform/cuda/source_rules.h"
#include "platform/machine_prompt.h"
#include "task/task.h"

namespace accelopt::platform::cuda {
namespace {

MachineDescription recorded_h200() {
  Json recorded = Json::parse(
      read_file(ACCELOPT_SOURCE_DIR "/src/platform/cuda/testdata/h200_description.json"));
  return describe_machine(parse_gpu_probe(recorded["probe_output"]), recorded["nvcc_version"],
                          nvcc_flags(NvccOptions{}));
}

std::string render(const Json& machine, const task::Task& task, const std::string& workload) {
  agents::PromptLibrary library({}, ACCELOPT_SOURCE_DIR "/prompts", "cuda");
  Json variables = {{"platform", "cuda"},
                    {"writes_code", true},
                    {"machine", machine},
                    {"task", agents::task_variables(task, workload)}};
  return library.render("executor.system", variables);
}

TEST(CudaPrompt, TheExecutorIsToldItWritesCudaForThisGpu) {
  MachineDescription description = recorded_h200();
  task::Task task = task::load_task(ACCELOPT_SOURCE_DIR "/bench/cuda/silu", ".cu");
  const task::Workload& workload = task.default_workload();
  std::string prompt = render(machine_variables(description, task, workload), task, workload.name);
  EXPECT_NE(prompt.find("an NVIDIA GPU (CUDA)"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("Device: NVIDIA H200, compute capability 9.0, 132 SMs"), std::string::npos)
      << prompt;
  EXPECT_NE(prompt.find("FP32 FMA 62000.0 GFLOP/s"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("GB/s at this task's working set"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("measured on the whole device"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("by nvcc 12.6 (V12.6.85)"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("-O3 -std=c++17"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("extern \"C\" void kernel(...)"), std::string::npos);
  EXPECT_NE(prompt.find("`<cub/cub.cuh>`"), std::string::npos) << prompt;
  for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kHeader)) {
    std::string name = rule->example.empty() ? "<" + rule->spelling + ">" : rule->example;
    EXPECT_NE(prompt.find("`" + name + "`"), std::string::npos) << name;
  }
  // Nothing of the CPU fragment.
  for (const char* cpu_word : {"AVX", "x86", "immintrin", "omp.h"}) {
    EXPECT_EQ(prompt.find(cpu_word), std::string::npos) << cpu_word << "\n" << prompt;
  }
  EXPECT_EQ(prompt.find("{{"), std::string::npos);
}

TEST(CudaPrompt, RendersWithoutTheTasksCeilings) {
  MachineDescription description = recorded_h200();
  task::Task task = task::load_task(ACCELOPT_SOURCE_DIR "/bench/cuda/silu", ".cu");
  std::string prompt = render(description.prompt_variables, task, "");
  EXPECT_NE(prompt.find("Measured ceilings of the whole device: FP32 FMA 62000 GFLOP/s"),
            std::string::npos)
      << prompt;
  EXPECT_NE(prompt.find("1024 MiB 4150 GB/s"), std::string::npos) << prompt;
}

TEST(CudaPrompt, TheDescriptionCarriesWhatAPersonNeeds) {
  MachineDescription description = recorded_h200();
  std::map<std::string, std::string> facts(description.facts.begin(), description.facts.end());
  EXPECT_EQ(facts["gpu"], "NVIDIA H200");
  EXPECT_EQ(facts["compute capability"], "9.0");
  EXPECT_EQ(facts["SMs"], "132");
  EXPECT_EQ(facts["compiler"], "nvcc 12.6 (V12.6.85)");
  ASSERT_TRUE(description.peaks);
  EXPECT_EQ(description.peaks->scope, CeilingScope::kWholeDevice);
  EXPECT_EQ(description.record["sms"], 132);
}

}  // namespace
}  // namespace accelopt::platform::cuda
