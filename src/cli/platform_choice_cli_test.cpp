// --platform on the real `accelopt` binary: a baseline evaluated through an evaluator command
// (evaluators/ssh-cpu against a local sshd), and cuda refused on a machine without a GPU.
#include <gtest/gtest.h>

#include "common/files.h"
#include "common/json.h"
#include "common/subprocess.h"
#include "platform/command/testing/local_sshd.h"
#include "platform/cuda/cuda_entry.h"

namespace accelopt::cli {
namespace {

const std::filesystem::path kAccelopt = ACCELOPT_BINARY_DIR "/src/cli/accelopt";
const std::filesystem::path kSource = ACCELOPT_SOURCE_DIR;

CommandResult accelopt(std::vector<std::string> arguments, const std::filesystem::path& home) {
  SpawnOptions options;
  options.argv = {kAccelopt.string()};
  options.argv.insert(options.argv.end(), arguments.begin(), arguments.end());
  options.environment = clean_environment(home);
  // The tests' own caches (cmake/AccelOpt.cmake sets it), so the binary does not probe afresh.
  if (const char* cache = std::getenv("ACCELOPT_CACHE_DIR")) {
    options.environment.push_back(std::string("ACCELOPT_CACHE_DIR=") + cache);
  }
  return run_command(options, std::chrono::milliseconds(600000));
}

TEST(PlatformChoiceCli, CudaWithoutAGpuFailsSayingSo) {
  if (!platform::cuda::missing_nvidia_device()) GTEST_SKIP() << "this machine has an NVIDIA device";
  TempDir dir;
  CommandResult result = accelopt({"eval", "--platform", "cuda", "--task",
                                   (kSource / "bench/cuda/silu").string(), "--workload", "small"},
                                  dir.path());
  EXPECT_TRUE(result.status.exited && result.status.exit_code != 0) << result.output;
  EXPECT_NE(result.output.find("cuda: no NVIDIA device visible (nvidia-smi"), std::string::npos)
      << result.output;
}

TEST(PlatformChoiceCli, AnEvaluatorCommandEvaluatesTheBaselineThroughSsh) {
  if (auto reason = accelopt::testing::LocalSshd::unavailable_reason()) GTEST_SKIP() << *reason;
  accelopt::testing::LocalSshd sshd;
  const char* cache = std::getenv("ACCELOPT_CACHE_DIR");
  Json config = {
      {"name", "ssh-local"},
      {"argv", sshd.evaluator_argv(kAccelopt, {std::string("ACCELOPT_CACHE_DIR=") +
                                               (cache ? cache : sshd.directory().c_str())})},
      {"correctness", "evaluator"},
      {"timeout_seconds", 300}};
  std::filesystem::path file = sshd.directory() / "ssh-local.json";
  write_file_atomic(file, config.dump(2));
  CommandResult result = accelopt({"eval", "--platform", "command:" + file.string(), "--task",
                                   (kSource / "bench/cpu/silu").string(), "--workload", "small",
                                   "--budget", "2", "--target", "0.1"},
                                  sshd.directory());
  EXPECT_TRUE(result.status.exited && result.status.exit_code == 0) << result.output;
  EXPECT_NE(result.output.find("PASSED"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("speedup"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace accelopt::cli
