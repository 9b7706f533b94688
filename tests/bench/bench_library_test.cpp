// `accelopt bench` with the library rows: oneDNN's matmul, trusted library code from the task's
// library/ folder, compiles against <dnnl.h>, links -ldnnl and passes; the same source handed in as
// a kernel (`--kernels`, as an agent's would be) is still refused by the compile-stage checks.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>

#include "common/files.h"

namespace accelopt {
namespace {

struct Result {
  int code = 0;
  std::string output;
};

Result bench(const std::string& arguments, const std::filesystem::path& scratch) {
  std::filesystem::path output = scratch / "output.txt";
  std::string command = std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt bench --suite " +
                        ACCELOPT_SOURCE_DIR + "/bench/cpu --tasks matmul --workload small " +
                        "--budget 0.5 --target 0.2 --csv " + arguments + " > " + output.string() +
                        " 2>&1";
  int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, read_file(output)};
}

bool has_onednn() {
  return std::filesystem::exists("/usr/include/dnnl.h");
}

TEST(BenchLibrary, OnednnRowPasses) {
  if (!has_onednn()) GTEST_SKIP() << "no oneDNN (scripts/setup.sh installs libdnnl-dev)";
  TempDir scratch("accelopt-bench-library");
  Result result = bench("", scratch.path());
  EXPECT_EQ(result.code, 0) << result.output;
  EXPECT_NE(result.output.find("\nmatmul,baseline,PASSED,"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("\nmatmul,onednn,PASSED,"), std::string::npos) << result.output;
}

TEST(BenchLibrary, TheSameSourceAsAnUntrustedKernelIsRefused) {
  TempDir scratch("accelopt-bench-library");
  std::filesystem::path kernels = scratch.path() / "kernels";
  std::filesystem::create_directories(kernels);
  std::filesystem::copy_file(
      std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/cpu/matmul/library/onednn.cpp",
      kernels / "matmul.cpp");
  Result result = bench("--no-library --kernels " + kernels.string(), scratch.path());
  EXPECT_EQ(result.code, 1) << result.output;
  EXPECT_NE(result.output.find("matmul,from kernels,REJECTED_SOURCE,"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("#include <dnnl.h> is not allowed"), std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace accelopt
