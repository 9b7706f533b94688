#include "platform/cuda/source_rules.h"

#include <gtest/gtest.h>

#include "common/files.h"

namespace accelopt::platform::cuda {
namespace {

TEST(CudaSourceRules, EveryBaselineFollowsThem) {
  for (const auto& entry : std::filesystem::directory_iterator(ACCELOPT_SOURCE_DIR "/bench/cuda")) {
    std::string source = read_file(entry.path() / "baseline.cu");
    EXPECT_EQ(check_cuda_source(source, "kernel"), std::nullopt) << entry.path();
  }
}

TEST(CudaSourceRules, RejectsForeignHeadersAndAMissingEntryPoint) {
  std::string good =
      "#include \"accelopt_task.h\"\n#include <cuda_fp16.h>\n"
      "extern \"C\" void kernel(const float* x, float* out) {}\n";
  EXPECT_EQ(check_cuda_source(good, "kernel"), std::nullopt);
  auto socket = check_cuda_source("#include <sys/socket.h>\n" + good, "kernel");
  ASSERT_TRUE(socket);
  EXPECT_NE(socket->find("line 1: #include <sys/socket.h>"), std::string::npos);
  EXPECT_TRUE(check_cuda_source("#include_next <cmath>\n" + good, "kernel"));
  auto missing = check_cuda_source(good, "silu");
  ASSERT_TRUE(missing);
  EXPECT_NE(missing->find("extern \"C\" void silu"), std::string::npos);
}

}  // namespace
}  // namespace accelopt::platform::cuda
