// The CUDA platform on a real GPU: the baselines pass against the CPU reference (bench/cuda's
// float32 ones, and bench/flashinfer's bfloat16, float16 and int32 ones against their PyTorch
// references), hostile kernels get the verdict they deserve, timing converges. Every test here
// skips, saying why, on a machine without nvcc, without the runner or without a device
// (scripts/gpu-check.sh runs them on one).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>

#include "common/error.h"
#include "common/files.h"
#include "platform/cuda/cuda_platform.h"
#include "platform/evaluation_memory.h"
#include "platform/registry.h"

namespace accelopt::platform::cuda {
namespace {

const std::filesystem::path kBench = ACCELOPT_SOURCE_DIR "/bench/cuda";
const std::filesystem::path kFlashInfer = ACCELOPT_SOURCE_DIR "/bench/flashinfer";
const std::filesystem::path kHostile = ACCELOPT_SOURCE_DIR "/src/platform/cuda/testdata/hostile";

class CudaDeviceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    unavailable_ = cuda_unavailable_reason();
    if (unavailable_) return;
    ceilings_ = probe_gpu();
    reference_ = make_cpu_reference({});
  }
  void SetUp() override {
    if (unavailable_) GTEST_SKIP() << "no CUDA here: " << *unavailable_;
  }

  Verdict evaluate(const std::string& task_name, const std::string& source, bool time = false) {
    task::Task task = task::load_task(kBench / task_name, ".cu");
    return evaluate(task, source, time);
  }

  Verdict evaluate(const task::Task& task, const std::string& source, bool time) {
    CudaPlatformOptions options;
    options.call_timeout = std::chrono::milliseconds(5000);
    CudaPlatform platform(options, ceilings_, reference_.cases);
    EvalRequest request;
    request.task = &task;
    request.workload = "small";
    request.source = source;
    request.measure_time = time;
    request.timing.budget_seconds = 5;
    return platform.evaluate(request);
  }

  static inline std::optional<std::string> unavailable_;
  static inline GpuCeilings ceilings_;
  static inline CpuReference reference_;
};

TEST_F(CudaDeviceTest, EveryBaselinePassesAgainstTheCpuReference) {
  for (const auto& entry : std::filesystem::directory_iterator(kBench)) {
    std::string name = entry.path().filename();
    Verdict verdict = evaluate(name, read_file(entry.path() / "baseline.cu"));
    EXPECT_EQ(verdict.status, Status::kPassed) << name << ": " << verdict.message << "\n"
                                               << verdict.log;
  }
}

// Why a FlashInfer-Bench task cannot be checked here, or nullopt: its reference needs PyTorch.
std::optional<std::string> reference_unavailable(const task::Task& task) {
  if (read_file(task.reference_path()).find("import torch") == std::string::npos) {
    return std::nullopt;
  }
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) {
    return task.name + "'s reference needs PyTorch (scripts/setup.sh --torch)";
  }
  return std::nullopt;
}

// Why this machine lacks the memory to evaluate `task` on small, or nullopt.
std::optional<std::string> too_large_for_this_machine(const task::Task& task) {
  uint64_t needed = evaluation_memory_bytes(task, task.workload("small"));
  uint64_t available = available_memory_bytes();
  if (available >= needed) return std::nullopt;
  return task.name + " on small needs about " + std::to_string(needed / 1000000000) +
         " GB; this machine has " + std::to_string(available / 1000000000) + " GB available";
}

// Runs everywhere: only the MoE (its weights are const axes, held once: 1.41 GB, and 5.64 GB as
// the Python reference's float32) needs more than a few GB.
TEST(CudaDeviceTestScope, OnlyTheMoeNeedsManyGigabytes) {
  for (const auto& entry : std::filesystem::directory_iterator(kFlashInfer)) {
    if (!std::filesystem::exists(entry.path() / "baseline.cu")) continue;
    task::Task task = task::load_task(entry.path(), ".cu");
    uint64_t needed = evaluation_memory_bytes(task, task.workload("small"));
    if (task.name.starts_with("moe_")) {
      EXPECT_GT(needed, uint64_t{8} * 1000000000) << task.name;
    } else {
      EXPECT_LT(needed, uint64_t{4} * 1000000000) << task.name;
    }
  }
}

TEST_F(CudaDeviceTest, EveryFlashInferBaselinePassesAgainstItsPythonReference) {
  std::vector<std::string> skipped;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kFlashInfer)) {
    if (!std::filesystem::exists(entry.path() / "baseline.cu")) continue;
    task::Task task = task::load_task(entry.path(), ".cu");
    if (auto why = too_large_for_this_machine(task)) {
      skipped.push_back(*why);
      continue;
    }
    if (auto why = reference_unavailable(task)) {
      skipped.push_back(*why);
      continue;
    }
    try {
      Verdict verdict = evaluate(task, read_file(task.baseline_path()), false);
      EXPECT_EQ(verdict.status, Status::kPassed) << task.name << ": " << verdict.message << "\n"
                                                 << verdict.log;
      ++checked;
    } catch (const UserError& error) {
      ADD_FAILURE() << task.name << ": " << error.what();
    }
  }
  for (const std::string& why : skipped) std::cout << "not checked: " << why << "\n";
  if (checked == 0) GTEST_SKIP() << "no reference could run here";
}

TEST_F(CudaDeviceTest, TheRmsnormBFloat16BaselineIsTimedAgainstItself) {
  task::Task task = task::load_task(kFlashInfer / "rmsnorm_h128", ".cu");
  if (auto why = reference_unavailable(task)) GTEST_SKIP() << *why;
  Verdict verdict = evaluate(task, read_file(task.baseline_path()), true);
  ASSERT_EQ(verdict.status, Status::kPassed) << verdict.message;
  ASSERT_TRUE(verdict.timing);
  EXPECT_GT(verdict.timing->speedup, 0.7);
  EXPECT_LT(verdict.timing->speedup, 1.4);
}

TEST_F(CudaDeviceTest, TheSiluBaselineIsTimedAgainstItselfAndScored) {
  Verdict verdict = evaluate("silu", read_file(kBench / "silu/baseline.cu"), true);
  ASSERT_EQ(verdict.status, Status::kPassed) << verdict.message;
  ASSERT_TRUE(verdict.timing);
  EXPECT_GT(verdict.timing->speedup, 0.7);
  EXPECT_LT(verdict.timing->speedup, 1.4);
  ASSERT_TRUE(verdict.roofline);
  EXPECT_GT(verdict.roofline->percent_of_peak, 0);
  EXPECT_EQ(verdict.sandbox["landlock"], true) << verdict.sandbox.dump();
}

TEST_F(CudaDeviceTest, AWriteJustPastTheOutputIsCaughtByTheFence) {
  EXPECT_EQ(evaluate("silu", read_file(kHostile / "out_of_bounds_write.cu")).status,
            Status::kIncorrectShape);
}

TEST_F(CudaDeviceTest, AWildWriteIsARuntimeError) {
  Verdict verdict = evaluate("silu", read_file(kHostile / "wild_write.cu"));
  EXPECT_EQ(verdict.status, Status::kRuntimeError) << verdict.message;
}

TEST_F(CudaDeviceTest, AnEndlessKernelTimesOutAndIsKilled) {
  EXPECT_EQ(evaluate("silu", read_file(kHostile / "infinite_loop.cu")).status, Status::kTimeout);
}

TEST_F(CudaDeviceTest, TheHostStubCannotReadHostFiles) {
  Verdict verdict = evaluate("silu", read_file(kHostile / "read_host_file.cu"));
  EXPECT_EQ(verdict.status, Status::kIncorrectNumerical) << verdict.message;
}

TEST_F(CudaDeviceTest, TheHostStubCannotStartProcesses) {
  std::filesystem::remove("/tmp/accelopt-cuda-escaped");
  Verdict verdict = evaluate("silu", read_file(kHostile / "spawn_process.cu"));
  EXPECT_NE(verdict.status, Status::kPassed);
  EXPECT_FALSE(std::filesystem::exists("/tmp/accelopt-cuda-escaped"));
}

TEST_F(CudaDeviceTest, WritingAnInputIsCaught) {
  Verdict verdict = evaluate("silu", read_file(kHostile / "overwrite_input.cu"));
  EXPECT_EQ(verdict.status, Status::kIncorrectNumerical);
  EXPECT_NE(verdict.message.find("read-only"), std::string::npos) << verdict.message;
}

}  // namespace
}  // namespace accelopt::platform::cuda
