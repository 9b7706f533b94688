// nvcc on the CUDA edition's baselines and the hostile kernels, for an architecture named
// explicitly, so it runs on a machine with nvcc and no GPU.
#include <gtest/gtest.h>

#include "common/files.h"
#include "platform/cuda/nvcc_compiler.h"
#include "task/abi.h"
#include "task/task.h"

namespace accelopt::platform::cuda {
namespace {

class CudaCompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!find_nvcc()) GTEST_SKIP() << "no nvcc (scripts/setup.sh --cuda installs it)";
    NvccOptions options;
    options.arch = "sm_90";
    options.cache_directory = cache_.path();
    compiler_.emplace(options);
  }
  TempDir cache_{"accelopt-nvcc-cache"};
  std::optional<NvccCompiler> compiler_;
};

TEST_F(CudaCompileTest, EveryBaselineCompilesForItsDefaultWorkload) {
  for (const auto& entry : std::filesystem::directory_iterator(ACCELOPT_SOURCE_DIR "/bench/cuda")) {
    task::Task task = task::load_task(entry.path());
    std::string header = task::generate_kernel_header(task, task.default_workload());
    NvccResult result = compiler_->compile(read_file(entry.path() / "baseline.cu"), header);
    EXPECT_TRUE(result.ok) << entry.path() << "\n" << result.diagnostics;
  }
}

TEST_F(CudaCompileTest, TheCublasKernelsCompileAndLink) {
  for (const char* name : {"matmul", "transpose_matmul", "bmm"}) {
    std::filesystem::path directory =
        std::filesystem::path(ACCELOPT_SOURCE_DIR "/bench/cuda") / name;
    task::Task task = task::load_task(directory);
    std::string header = task::generate_kernel_header(task, task.default_workload());
    NvccResult result =
        compiler_->compile(read_file(directory / "library/cublas.cu"), header, {"-lcublas"});
    EXPECT_TRUE(result.ok) << name << "\n" << result.diagnostics;
  }
}

TEST_F(CudaCompileTest, HostileKernelsCompileSoThatTheSandboxMeetsThem) {
  task::Task task = task::load_task(ACCELOPT_SOURCE_DIR "/bench/cuda/silu");
  std::string header = task::generate_kernel_header(task, task.workload("small"));
  for (const auto& entry : std::filesystem::directory_iterator(
           ACCELOPT_SOURCE_DIR "/src/platform/cuda/testdata/hostile")) {
    NvccResult result = compiler_->compile(read_file(entry.path()), header);
    EXPECT_TRUE(result.ok) << entry.path() << "\n" << result.diagnostics;
  }
}

TEST_F(CudaCompileTest, ACompileErrorIsReportedAndCached) {
  std::string source =
      "#include \"accelopt_task.h\"\nextern \"C\" void kernel() { undefined_name; }\n";
  NvccResult first = compiler_->compile(source, "#pragma once\n");
  EXPECT_FALSE(first.ok);
  EXPECT_NE(first.diagnostics.find("undefined_name"), std::string::npos) << first.diagnostics;
  NvccResult second = compiler_->compile(source, "#pragma once\n");
  EXPECT_FALSE(second.ok);
  EXPECT_TRUE(second.cached);
}

}  // namespace
}  // namespace accelopt::platform::cuda
