// nvcc on the CUDA edition's fourteen baselines, bench/flashinfer's CUDA baselines (bfloat16,
// float16, float8_e4m3fn, int32 tensors), the cuBLAS kernels and the hostile kernels, for an
// architecture named explicitly (no GPU needed). Minutes of nvcc: labelled slow, and the compiles
// run side by side, as many at once as this process is given cores.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "common/files.h"
#include "platform/cuda/nvcc_compiler.h"
#include "task/abi.h"
#include "task/task.h"

namespace accelopt::platform::cuda {
namespace {

const std::filesystem::path kBench = ACCELOPT_SOURCE_DIR "/bench/cuda";
const std::filesystem::path kFlashInfer = ACCELOPT_SOURCE_DIR "/bench/flashinfer";

struct Job {
  std::string name;
  std::string source, header;
  std::vector<std::string> flags;
};

int cores_given() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

class CudaCompileAllTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!find_nvcc()) GTEST_SKIP() << "no nvcc (scripts/setup.sh --cuda installs it)";
    NvccOptions options;
    options.arch = "sm_90";
    options.cache_directory = cache_.path();
    compiler_.emplace(options);
  }

  // Compiles every job, `cores_given()` at a time; a failure names its job.
  void expect_all_compile(const std::vector<Job>& jobs) {
    std::atomic<size_t> next{0};
    std::mutex failures_mutex;
    std::vector<std::string> failures;
    std::vector<std::thread> workers;
    for (int worker = 0; worker < std::min<int>(cores_given(), static_cast<int>(jobs.size()));
         ++worker) {
      workers.emplace_back([&] {
        for (size_t i = next++; i < jobs.size(); i = next++) {
          NvccResult result = compiler_->compile(jobs[i].source, jobs[i].header, jobs[i].flags);
          if (!result.ok) {
            std::lock_guard lock(failures_mutex);
            failures.push_back(jobs[i].name + "\n" + result.diagnostics);
          }
        }
      });
    }
    for (std::thread& worker : workers) worker.join();
    for (const std::string& failure : failures) ADD_FAILURE() << failure;
  }

  TempDir cache_{"accelopt-nvcc-cache"};
  std::optional<NvccCompiler> compiler_;
};

TEST_F(CudaCompileAllTest, EveryBaselineCompilesForItsDefaultWorkload) {
  std::vector<Job> jobs;
  for (const auto& entry : std::filesystem::directory_iterator(kBench)) {
    task::Task task = task::load_task(entry.path(), ".cu");
    jobs.push_back({task.name,
                    read_file(task.baseline_path()),
                    task::generate_kernel_header(task, task.default_workload()),
                    {}});
  }
  EXPECT_EQ(jobs.size(), 14u);
  expect_all_compile(jobs);
}

// Each task folder with a baseline.cu, for its small workload (the device test's) and for the
// original's (FlashInfer-Bench's, sized for an H100): the kernels are specialized for their shapes,
// so both must compile.
TEST_F(CudaCompileAllTest, EveryFlashInferBaselineCompilesForItsWorkloads) {
  std::vector<Job> jobs;
  for (const auto& entry : std::filesystem::directory_iterator(kFlashInfer)) {
    if (!std::filesystem::exists(entry.path() / "baseline.cu")) continue;
    task::Task task = task::load_task(entry.path(), ".cu");
    for (const char* workload : {"small", "original"}) {
      jobs.push_back({task.name + " (" + workload + ")",
                      read_file(task.baseline_path()),
                      task::generate_kernel_header(task, task.workload(workload)),
                      {}});
    }
  }
  EXPECT_EQ(jobs.size(), 9u * 2u) << "nine tasks with a baseline.cu";
  expect_all_compile(jobs);
}

TEST_F(CudaCompileAllTest, TheCublasKernelsCompileAndLink) {
  std::vector<Job> jobs;
  for (const char* name : {"matmul", "transpose_matmul", "bmm"}) {
    task::Task task = task::load_task(kBench / name, ".cu");
    jobs.push_back({name,
                    read_file(kBench / name / "library/cublas.cu"),
                    task::generate_kernel_header(task, task.default_workload()),
                    {"-lcublas"}});
  }
  expect_all_compile(jobs);
}

TEST_F(CudaCompileAllTest, HostileKernelsCompileSoThatTheSandboxMeetsThem) {
  task::Task task = task::load_task(kBench / "silu", ".cu");
  std::string header = task::generate_kernel_header(task, task.workload("small"));
  std::vector<Job> jobs;
  for (const auto& entry : std::filesystem::directory_iterator(
           ACCELOPT_SOURCE_DIR "/src/platform/cuda/testdata/hostile")) {
    jobs.push_back({entry.path().filename().string(), read_file(entry.path()), header, {}});
  }
  expect_all_compile(jobs);
}

}  // namespace
}  // namespace accelopt::platform::cuda
