// evaluators/ssh-cpu against a real sshd: the test starts one on a free loopback port with a
// throwaway host key and authorized key in a temporary directory, and judges kernels through it
// with this build's accelopt as the "remote" harness.
#include <gtest/gtest.h>

#include "common/files.h"
#include "platform/command/command_platform.h"
#include "platform/command/testing/evaluator_test_fixture.h"
#include "platform/command/testing/local_sshd.h"

namespace accelopt::platform::command {
namespace {

const char* kAccelopt = ACCELOPT_BINARY_DIR "/src/cli/accelopt";

class SshEvaluatorTest : public EvaluatorTest {
 protected:
  void SetUp() override {
    if (auto reason = accelopt::testing::LocalSshd::unavailable_reason()) GTEST_SKIP() << *reason;
    if (!std::filesystem::exists(kAccelopt)) GTEST_SKIP() << kAccelopt << " is not built";
    sshd_.emplace();
  }

  Verdict evaluate(const std::string& source, bool measure_time) {
    const char* cache = std::getenv("ACCELOPT_CACHE_DIR");
    CommandPlatformOptions options;
    options.name = "ssh-cpu";
    options.argv = sshd_->evaluator_argv(kAccelopt, {std::string("ACCELOPT_CACHE_DIR=") +
                                                     (cache ? cache : sshd_->directory().c_str())});
    options.correctness = CorrectnessMode::kEvaluator;
    options.timeout = std::chrono::milliseconds(300000);
    EvalRequest request = small_request(source);
    request.measure_time = measure_time;
    request.timing.budget_seconds = 2;
    request.timing.target_half_width = 0.1;
    return evaluate_through(options, request);  // kEvaluator: no reference case is computed here
  }

  std::optional<accelopt::testing::LocalSshd> sshd_;
};

TEST_F(SshEvaluatorTest, TheBaselineJudgedOnTheRemoteHostPassesAndIsTimedAgainstItself) {
  Verdict verdict = evaluate(read_file(task_.baseline_path()), true);
  ASSERT_EQ(verdict.status, Status::kPassed) << verdict.message << "\n" << verdict.log;
  EXPECT_GE(verdict.correctness.seeds_checked, task_.seeds);  // and the edge-case sets
  ASSERT_TRUE(verdict.timing);
  EXPECT_GE(verdict.timing->pairs, 10);
  EXPECT_GT(verdict.timing->speedup, 0.5);
  EXPECT_LT(verdict.timing->speedup, 2.0);
  EXPECT_EQ(verdict.profile["device"]["platform"], "cpu");
}

TEST_F(SshEvaluatorTest, ARemoteCompileErrorComesBackWithItsLog) {
  Verdict verdict = evaluate(
      "#include \"accelopt_task.h\"\n"
      "extern \"C\" void kernel(const float* __restrict x, float* __restrict out) {\n"
      "  out[0] = undefined_name;\n"
      "}\n",
      false);
  EXPECT_EQ(verdict.status, Status::kCompileError) << verdict.message;
  EXPECT_NE(verdict.log.find("undefined_name"), std::string::npos) << verdict.log;
}

}  // namespace
}  // namespace accelopt::platform::command
