// Hostile CUDA kernels that the source rules or the compile's checks must refuse: each file in
// kernels/cuda/ declares, as the CPU kernels do, `// expect: REJECTED_SOURCE` and `// message:
// text`, a phrase the reason must contain. A kernel marked `// stage: compile` must pass the source
// rules and be refused by the checks of what nvcc read and wrote (nvcc_checks.h), run through
// NvccCompiler, the CUDA platform's compile-only seam: nvcc is needed (skipped without it), a GPU
// is not; `// log lacks: text` names what its diagnostics must not show. Kernels that misbehave
// only when run live in src/platform/cuda/testdata/hostile (cuda_device_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "common/files.h"
#include "platform/cuda/nvcc_compiler.h"
#include "platform/cuda/source_rules.h"
#include "task/abi.h"
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
  if (header_field(source, "stage") == "compile") {
    ASSERT_EQ(rejection, std::nullopt) << GetParam() << " should reach the compile";
    if (!platform::cuda::find_nvcc()) GTEST_SKIP() << "no nvcc (scripts/setup.sh --cuda)";
    TempDir cache("accelopt-nvcc-cache");
    platform::cuda::NvccOptions options;
    options.arch = "sm_90";
    options.cache_directory = cache.path();
    platform::cuda::NvccCompiler nvcc(options);
    EXPECT_TRUE(nvcc.isolated()) << nvcc.isolation_problem();
    platform::cuda::NvccResult compiled =
        nvcc.compile(source, task::generate_kernel_header(silu, silu.workload("small")));
    rejection = compiled.rejection;
    ASSERT_TRUE(rejection) << GetParam() << " passed the compile's checks:\n"
                           << compiled.diagnostics;
    EXPECT_FALSE(compiled.ok);
    std::string lacks = header_field(source, "log lacks");
    std::string log = compiled.diagnostics;
    std::transform(log.begin(), log.end(), log.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!lacks.empty()) {
      EXPECT_EQ(log.find(lacks), std::string::npos) << compiled.diagnostics;
    }
  }
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
