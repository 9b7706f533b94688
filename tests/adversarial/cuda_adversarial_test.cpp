// Hostile CUDA kernels that the source rules must refuse: each file in kernels/cuda/ declares, as
// the CPU kernels do, `// expect: REJECTED_SOURCE` and `// message: text`, a phrase the reason must
// contain. The rules run before nvcc, so this needs neither nvcc nor a GPU; kernels that misbehave
// only when run live in src/platform/cuda/testdata/hostile (cuda_device_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "common/files.h"
#include "platform/cuda/source_rules.h"
#include "task/task.h"

namespace accelopt {
namespace {

const std::filesystem::path kKernels =
    std::filesystem::path(ACCELOPT_SOURCE_DIR) / "tests/adversarial/kernels/cuda";

std::string header_field(const std::string& source, const std::string& name) {
  std::smatch match;
  std::regex pattern("// " + name + ": (.*)");
  return std::regex_search(source, match, pattern) ? match[1].str() : std::string();
}

class CudaAdversarialTest : public testing::TestWithParam<std::string> {};

TEST_P(CudaAdversarialTest, IsRefusedByTheSourceRulesWithTheRightReason) {
  std::string source = read_file(kKernels / GetParam());
  ASSERT_EQ(header_field(source, "expect"), "REJECTED_SOURCE")
      << GetParam() << ": only the source rules run here";
  std::string message = header_field(source, "message");
  ASSERT_FALSE(message.empty()) << GetParam() << " has no '// message:' line";

  task::Task silu =
      task::load_task(std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/cuda/silu", ".cu");
  std::optional<std::string> rejection =
      platform::cuda::check_cuda_source(source, silu.entry_point);
  ASSERT_TRUE(rejection) << GetParam() << " passed the source rules";
  EXPECT_NE(rejection->find(message), std::string::npos) << *rejection;
}

std::vector<std::string> kernel_files() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(kKernels)) {
    if (entry.path().extension() == ".cu") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

INSTANTIATE_TEST_SUITE_P(Kernels, CudaAdversarialTest, testing::ValuesIn(kernel_files()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(0, info.param.size() - 3);
                         });

TEST(CudaAdversarialSanity, TheSiluBaselinePassesTheSourceRules) {
  std::filesystem::path silu = std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/cuda/silu";
  task::Task task = task::load_task(silu, ".cu");
  EXPECT_EQ(platform::cuda::check_cuda_source(read_file(task.baseline_path()), task.entry_point),
            std::nullopt);
}

}  // namespace
}  // namespace accelopt
