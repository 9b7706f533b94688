// nvcc on one representative baseline and a broken kernel, for an architecture named explicitly,
// so it runs on a machine with nvcc and no GPU. cuda_compile_all_test (slow) compiles the rest.
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

TEST_F(CudaCompileTest, TheSiluBaselineCompilesAndIsCachedByContent) {
  task::Task task = task::load_task(ACCELOPT_SOURCE_DIR "/bench/cuda/silu", ".cu");
  std::string header = task::generate_kernel_header(task, task.workload("small"));
  NvccResult first = compiler_->compile(read_file(task.baseline_path()), header);
  ASSERT_TRUE(first.ok) << first.diagnostics;
  EXPECT_FALSE(first.cached);
  EXPECT_TRUE(std::filesystem::exists(first.library));
  NvccResult second = compiler_->compile(read_file(task.baseline_path()), header);
  EXPECT_TRUE(second.ok && second.cached);
  EXPECT_EQ(second.library, first.library);
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
