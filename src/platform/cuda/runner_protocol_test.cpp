#include "platform/cuda/runner_protocol.h"

#include <gtest/gtest.h>

#include "platform/cuda/cuda_platform.h"
#include "platform/cuda/cuda_runner.h"

namespace accelopt::platform::cuda {
namespace {

TEST(RunnerProtocol, ParsesEveryReply) {
  auto ready = parse_runner_reply("READY device=NVIDIA sm=9.0 landlock=1");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->kind, ReplyKind::kReady);
  EXPECT_EQ(ready->text, "device=NVIDIA sm=9.0 landlock=1");
  auto done = parse_runner_reply("DONE 0.00125");
  ASSERT_TRUE(done);
  EXPECT_EQ(done->kind, ReplyKind::kDone);
  EXPECT_DOUBLE_EQ(done->seconds, 0.00125);
  EXPECT_EQ(parse_runner_reply("LOADED")->kind, ReplyKind::kLoaded);
  EXPECT_EQ(parse_runner_reply("FETCHED")->kind, ReplyKind::kFetched);
  auto error = parse_runner_reply("ERROR cudaErrorIllegalAddress: an illegal memory access");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind, ReplyKind::kError);
  EXPECT_EQ(parse_runner_reply("FAIL no CUDA device: none")->text, "no CUDA device: none");
}

TEST(RunnerProtocol, RejectsWhatAKernelMightPrintInstead) {
  EXPECT_FALSE(parse_runner_reply("DONE"));
  EXPECT_FALSE(parse_runner_reply("DONE -1"));
  EXPECT_FALSE(parse_runner_reply("DONE 0.1 extra"));
  EXPECT_FALSE(parse_runner_reply("LOADED now"));
  EXPECT_FALSE(parse_runner_reply("hello from the kernel"));
  EXPECT_FALSE(parse_runner_reply(""));
}

// Without a GPU the runner must say so plainly, which is what device tests skip on.
TEST(CudaRunner, WithoutADeviceTheRunnerFailsSayingWhy) {
  auto program = find_cuda_runner_program();
  if (!program) GTEST_SKIP() << "accelopt-cuda-runner is not built (no CUDA toolkit)";
  auto reason = cuda_unavailable_reason();
  if (!reason) GTEST_SKIP() << "this machine has a CUDA device";
  SharedBuffers buffers({64});
  CudaRunnerOptions options;
  options.program = *program;
  options.library = "/dev/null";
  CudaRunner runner(options, buffers);
  auto failure = runner.start();
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->find("no CUDA device"), std::string::npos) << *failure;
}

}  // namespace
}  // namespace accelopt::platform::cuda
