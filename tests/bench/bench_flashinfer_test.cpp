// bench/flashinfer's tasks (FlashInfer-Bench definitions imported with `accelopt task import`,
// their PyTorch references kept as written) evaluated whole on their `small` workloads, baseline
// against reference.py, timed turns included: every task with a baseline of its own must pass.
// The folders are read as they are, so a task added there is tested without a change here; a
// folder with no definition.json (only the original/ definition) or with the import's stub
// baseline is not a task yet and is left out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "bench_cpu_fixture.h"
#include "common/error.h"
#include "common/files.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/evaluation_memory.h"
#include "task/baseline_stub.h"
#include "task/task.h"

namespace accelopt {
namespace {

const std::filesystem::path kFlashInferDirectory =
    std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench" / "flashinfer";

// The task folders with a baseline that is not the import's stub, sorted.
std::vector<std::string> tasks_with_baselines() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kFlashInferDirectory)) {
    std::filesystem::path baseline = entry.path() / "baseline.cpp";
    if (!std::filesystem::exists(entry.path() / "definition.json") ||
        !std::filesystem::exists(baseline) || task::is_baseline_stub(read_file(baseline))) {
      continue;
    }
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool has_torch() {
  return std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0;
}

// One CPU platform for the whole suite, as the bench/cpu tests have.
class FlashInferTaskTest : public BenchCpuTest {};

TEST_P(FlashInferTaskTest, BaselinePassesOnSmall) {
  task::Task task = task::load_task(kFlashInferDirectory / GetParam());
  ASSERT_TRUE(task.python_reference) << "a FlashInfer-Bench task's reference is its reference.py";
  if (read_file(task.reference_path()).find("import torch") != std::string::npos && !has_torch()) {
    GTEST_SKIP() << task.name
                 << "'s reference needs PyTorch: no python3-torch here (scripts/setup.sh --torch)";
  }
  uint64_t needed = platform::evaluation_memory_bytes(task, task.workload("small"));
  if (uint64_t available = platform::available_memory_bytes(); available < needed) {
    GTEST_SKIP() << task.name << " on small needs about " << needed / 1000000000.0
                 << " GB; this machine has " << available / 1000000000.0 << " GB available";
  }
  platform::EvalRequest request;
  request.task = &task;
  request.workload = "small";
  request.source = read_file(task.baseline_path());
  request.timing.budget_seconds = 2;
  request.timing.min_pairs = 4;
  request.timing.quiet_wait_seconds = 0;
  kernel::Verdict verdict = platform_->evaluate(request);
  EXPECT_EQ(verdict.status, kernel::Status::kPassed)
      << task.name << ": " << kernel::status_name(verdict.status) << ": " << verdict.message;
  EXPECT_EQ(
      verdict.correctness.seeds_checked, task.seeds +
                                             [&] {
                                               int sets = 0;
                                               for (const task::InputSet& set : task.input_sets)
                                                 sets += set.seeds;
                                               return sets;
                                             }())
      << "every case was checked";
}

INSTANTIATE_TEST_SUITE_P(BenchFlashInfer, FlashInferTaskTest,
                         testing::ValuesIn(tasks_with_baselines()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FlashInferTaskTest);

}  // namespace
}  // namespace accelopt
