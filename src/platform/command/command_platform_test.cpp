// The command platform against a stand-in evaluator (testdata/standin_evaluator.py): a real child
// process speaking the protocol, checked against the real CPU reference of the silu task.
#include "platform/command/command_platform.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/files.h"
#include "common/subprocess.h"
#include "platform/command/command_config.h"
#include "platform/command/testing/evaluator_test_fixture.h"

namespace accelopt::platform::command {
namespace {

const char* kStandIn = ACCELOPT_SOURCE_DIR "/src/platform/command/testdata/standin_evaluator.py";

class CommandPlatformTest : public EvaluatorTest {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "needs /usr/bin/python3";
  }

  Verdict evaluate(const std::string& mode,
                   CorrectnessMode correctness = CorrectnessMode::kValues) {
    CommandPlatformOptions options;
    options.name = "stand-in";
    options.argv = {"/usr/bin/python3", kStandIn, mode};
    options.correctness = correctness;
    options.timeout = std::chrono::milliseconds(5000);
    options.ceilings.fma_gflops = 100;
    options.ceilings.vector_gflops = 10;
    options.ceilings.bandwidth = {{1e3, 100}, {1e9, 100}};
    return evaluate_through(options, small_request("// any kernel: the stand-in does not run it"));
  }
};

TEST_F(CommandPlatformTest, CorrectOutputsAndTurnsBecomeAPassedVerdictScoredHere) {
  Verdict verdict = evaluate("values");
  ASSERT_EQ(verdict.status, Status::kPassed) << verdict.message << "\n" << verdict.log;
  EXPECT_GE(verdict.correctness.seeds_checked, task_.seeds);  // and the edge-case sets
  EXPECT_LT(verdict.correctness.rel_l2_error, 1e-6);
  ASSERT_TRUE(verdict.timing);
  EXPECT_NEAR(verdict.timing->speedup, 2.0, 0.05);
  EXPECT_EQ(verdict.timing->pairs, 20);
  EXPECT_TRUE(verdict.timing->converged);
  EXPECT_EQ(verdict.timing->candidate_calls_per_turn, 20);
  ASSERT_TRUE(verdict.roofline);
  EXPECT_EQ(verdict.roofline->bound,
            "vector");  // 3·32·64 flops at 10 GFLOP/s outlast 16 KiB at 100 GB/s
  EXPECT_GT(verdict.roofline->percent_of_peak, 0);
  EXPECT_EQ(verdict.compile_seconds, 0.5);
  EXPECT_EQ(verdict.profile["device"]["name"], "stand-in");
}

TEST_F(CommandPlatformTest, WrongValuesAreIncorrectNumerical) {
  Verdict verdict = evaluate("wrong");
  EXPECT_EQ(verdict.status, Status::kIncorrectNumerical);
  EXPECT_NE(verdict.message.find("case 1"), std::string::npos) << verdict.message;
}

TEST_F(CommandPlatformTest, ChecksumsOfCorrectOutputsPass) {
  Verdict verdict = evaluate("checksums", CorrectnessMode::kChecksums);
  EXPECT_EQ(verdict.status, Status::kPassed) << verdict.message;
}

TEST_F(CommandPlatformTest, AnEvaluatorThatChecksItselfReportsItsFigures) {
  Verdict verdict = evaluate("self-check", CorrectnessMode::kEvaluator);
  ASSERT_EQ(verdict.status, Status::kPassed) << verdict.message;
  EXPECT_GE(verdict.correctness.seeds_checked, task_.seeds);  // and the edge-case sets
  EXPECT_EQ(verdict.correctness.rel_l2_error, 1e-7);
}

TEST_F(CommandPlatformTest, TheEvaluatorsFailureStatusAndLogBecomeTheVerdict) {
  Verdict verdict = evaluate("compile-error");
  EXPECT_EQ(verdict.status, Status::kCompileError);
  EXPECT_NE(verdict.log.find("identifier \"foo\""), std::string::npos);
}

TEST_F(CommandPlatformTest, AnImpossiblyFastKernelIsRejectedByPhysics) {
  EXPECT_EQ(evaluate("too-fast").status, Status::kRejectedPhysics);
}

TEST_F(CommandPlatformTest, TheRequestNamesKernelAnchorWorkloadAndSeeds) {
  Verdict verdict = evaluate("echo-request", CorrectnessMode::kEvaluator);
  EXPECT_NE(verdict.log.find("kernel=// any kernel"), std::string::npos) << verdict.log;
  EXPECT_NE(verdict.log.find(
                "anchor=baseline correctness=evaluator workload=small seeds=[1, 2, 3, 4, 5]"),
            std::string::npos)
      << verdict.log;
}

TEST_F(CommandPlatformTest, ABrokenEvaluatorIsTheUsersErrorWithItsStderr) {
  auto message_of = [&](const std::string& mode) -> std::string {
    try {
      evaluate(mode);
    } catch (const UserError& error) {
      return error.what();
    }
    return "no error";
  };
  EXPECT_NE(message_of("exit").find("cannot reach the device"), std::string::npos);
  EXPECT_NE(message_of("exit").find("exited with status 3"), std::string::npos);
  EXPECT_NE(message_of("not-json").find("not one JSON object"), std::string::npos);
  EXPECT_NE(message_of("old-protocol").find("accelopt-evaluator/0"), std::string::npos);
  EXPECT_NE(message_of("short-values").find("bytes, expected"), std::string::npos);
  EXPECT_NE(message_of("hang").find("no answer within 5 s"), std::string::npos);
}

// evaluators/nki with a stand-in for the Neuron SDK (testdata/nki_standin): the protocol side of
// the NKI evaluator, with numpy "kernels" in place of NKI ones. The real SDK needs a Trainium host.
class NkiEvaluatorTest : public CommandPlatformTest {
 protected:
  void SetUp() override {
    CommandPlatformTest::SetUp();
    TempDir scratch("accelopt-numpy-check");
    SpawnOptions check;
    check.argv = {"/usr/bin/python3", "-c", "import numpy"};
    check.environment = clean_environment(scratch.path());
    CommandResult numpy = run_command(check, std::chrono::milliseconds(20000));
    if (!numpy.status.exited || numpy.status.exit_code != 0) {
      GTEST_SKIP() << "the NKI evaluator needs numpy (Debian: python3-numpy)";
    }
  }

  Verdict evaluate_nki(const std::string& source, const std::string& anchor) {
    CommandPlatformOptions options;
    options.name = "nki";
    options.argv = {
        "/usr/bin/python3", ACCELOPT_SOURCE_DIR "/evaluators/nki/accelopt-nki-evaluator",
        "--warmup",         "1",
        "--iterations",     "3"};
    options.environment = {"ACCELOPT_NKI_SDK=standin_nki",
                           "PYTHONPATH=" ACCELOPT_SOURCE_DIR
                           "/src/platform/command/testdata/nki_standin"};
    options.correctness = CorrectnessMode::kValues;
    options.timeout = std::chrono::milliseconds(60000);
    EvalRequest request = small_request(source);
    request.anchor_source = anchor;
    request.timing.min_pairs = 5;
    request.timing.max_pairs = 5;
    return evaluate_through(options, request);
  }
};

const char* kNumpySilu =
    "import numpy\n"
    "def kernel(x):\n"
    "    return x / (1.0 + numpy.exp(-x))\n";
const char* kLoopSilu =
    "import math\n"
    "import numpy\n"
    "def kernel(x):\n"
    "    out = numpy.empty_like(x)\n"
    "    for index, value in numpy.ndenumerate(x):\n"
    "        out[index] = value / (1.0 + math.exp(-value))\n"
    "    return out\n";

TEST_F(NkiEvaluatorTest, AnNkiKernelIsCheckedAgainstTheCpuReferenceAndTimedInPairs) {
  Verdict verdict = evaluate_nki(kNumpySilu, kLoopSilu);
  ASSERT_EQ(verdict.status, Status::kPassed) << verdict.message << "\n" << verdict.log;
  EXPECT_GE(verdict.correctness.seeds_checked, task_.seeds);  // and the edge-case sets
  ASSERT_TRUE(verdict.timing);
  EXPECT_EQ(verdict.timing->pairs, 5);
  EXPECT_GT(verdict.timing->speedup, 1.0);  // numpy's vector exp beats a Python loop
  EXPECT_EQ(verdict.profile["device"]["sdk"], "standin_nki");
}

TEST_F(NkiEvaluatorTest, AWrongOrBrokenNkiKernelGetsItsVerdict) {
  EXPECT_EQ(evaluate_nki("def kernel(x):\n    return x\n", kLoopSilu).status,
            Status::kIncorrectNumerical);
  EXPECT_EQ(evaluate_nki("def kernel(x:\n", kLoopSilu).status, Status::kCompileError);
  Verdict raised =
      evaluate_nki("def kernel(x):\n    raise RuntimeError('no SBUF left')\n", kLoopSilu);
  EXPECT_EQ(raised.status, Status::kRuntimeError);
  EXPECT_NE(raised.message.find("no SBUF left"), std::string::npos) << raised.message;
}

// evaluators/stand-in, shipped for measuring a run's speedup with workers (docs/scale-out.md): as
// its file configures it, it takes its sleep per evaluation and answers each source with a fixed
// speed, so a kernel's speedup over another is the same each time and its inverse the other way.
// The build's compiled copy, beside a copy of the same file, answers as the script does.
TEST_F(CommandPlatformTest, TheShippedStandInSleepsAndAnswersAFixedRatioPerSource) {
  auto stand_in_speedup = [this](CommandPlatformOptions shipped, const std::string& source,
                                 const std::string& anchor) {
    shipped.argv.back() = "0.3";  // a shorter sleep
    EvalRequest request = small_request(source);
    request.anchor_source = anchor;
    auto start = std::chrono::steady_clock::now();
    Verdict verdict = evaluate_through(shipped, request);
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
    EXPECT_EQ(verdict.status, Status::kPassed) << verdict.message << "\n" << verdict.log;
    return verdict.timing ? verdict.timing->speedup : 0.0;
  };
  for (std::string folder :
       {ACCELOPT_SOURCE_DIR "/evaluators/stand-in", ACCELOPT_BINARY_DIR "/evaluators/stand-in"}) {
    SCOPED_TRACE(folder);
    CommandPlatformOptions shipped = load_command_config(folder + "/standin.json");
    ASSERT_EQ(shipped.argv.size(), 3u);
    EXPECT_EQ(shipped.argv[0], folder + "/accelopt-standin-evaluator");  // beside it
    EXPECT_EQ(shipped.argv[1], "--seconds");
    EXPECT_EQ(shipped.correctness, CorrectnessMode::kEvaluator);
    double once = stand_in_speedup(shipped, "// kernel one", "// kernel two");
    EXPECT_GT(once, 0);
    EXPECT_EQ(stand_in_speedup(shipped, "// kernel one", "// kernel two"), once);
    EXPECT_NEAR(stand_in_speedup(shipped, "// kernel two", "// kernel one") * once, 1.0, 0.03);
  }
  // Both give a source the same speed (the SHA-256 of its JSON text), within the +-1 % jitter.
  double script =
      stand_in_speedup(load_command_config(ACCELOPT_SOURCE_DIR "/evaluators/stand-in/standin.json"),
                       "// kernel \"one\"\n", "// kernel two");
  double compiled =
      stand_in_speedup(load_command_config(ACCELOPT_BINARY_DIR "/evaluators/stand-in/standin.json"),
                       "// kernel \"one\"\n", "// kernel two");
  EXPECT_NEAR(compiled / script, 1.0, 0.03);
}

}  // namespace
}  // namespace accelopt::platform::command
