#include "platform/cuda/source_rules.h"

#include <gtest/gtest.h>

#include "common/files.h"

namespace accelopt::platform::cuda {
namespace {

const std::string kEntryPoint =
    "extern \"C\" void kernel(const float* __restrict x, float* __restrict out) {\n"
    "  silu<<<(M * N + 255) / 256, 256>>>(x, out);\n"
    "}\n";

const std::string kHonestKernel =
    "#include \"accelopt_task.h\"\n"
    "#include <cuda_fp16.h>\n"
    "__global__ void silu(const float* x, float* out) {\n"
    "  __shared__ float tile[256];\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  tile[threadIdx.x] = x[i];\n"
    "  out[i] = tile[threadIdx.x] / (1.0f + expf(-tile[threadIdx.x]));\n"
    "}\n" +
    kEntryPoint;

TEST(CudaSourceRules, EveryBaselineFollowsThem) {
  for (const auto& entry : std::filesystem::directory_iterator(ACCELOPT_SOURCE_DIR "/bench/cuda")) {
    std::string source = read_file(entry.path() / "baseline.cu");
    EXPECT_EQ(check_cuda_source(source, "kernel"), std::nullopt) << entry.path();
  }
  int flashinfer = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(ACCELOPT_SOURCE_DIR "/bench/flashinfer")) {
    if (!std::filesystem::exists(entry.path() / "baseline.cu")) continue;
    ++flashinfer;
    std::string source = read_file(entry.path() / "baseline.cu");
    EXPECT_EQ(check_cuda_source(source, "kernel"), std::nullopt) << entry.path();
  }
  EXPECT_EQ(flashinfer, 9) << "bench/flashinfer's CUDA baselines";
}

// These kernels misbehave only at run time: the rules must let them through to the sandbox.
TEST(CudaSourceRules, TheRuntimeHostileKernelsReachTheSandbox) {
  for (const auto& entry : std::filesystem::directory_iterator(
           ACCELOPT_SOURCE_DIR "/src/platform/cuda/testdata/hostile")) {
    EXPECT_EQ(check_cuda_source(read_file(entry.path()), "kernel"), std::nullopt) << entry.path();
  }
}

TEST(CudaSourceRules, AcceptsHonestSpellingsOfHeadersAndTheEntryPoint) {
  EXPECT_EQ(check_cuda_source(kHonestKernel, "kernel"), std::nullopt);
  for (std::string spelling : {
           "extern \"C\" __host__ void kernel(const float* x, float* out) {}\n",
           "extern \"C\"\nvoid\nkernel (const float* x, float* out) {}\n",
           "extern /* C linkage */ \"C\" void kernel(const float* x, float* out) {}\n",
           "extern \"C\" void ker\\\nnel(const float* x, float* out) {}\n",
       }) {
    EXPECT_EQ(check_cuda_source("#include \"accelopt_task.h\"\n" + spelling, "kernel"),
              std::nullopt)
        << spelling;
  }
  for (std::string header :
       {"#  include <cuda/pipeline>  // async copies\n", "#include <cooperative_groups.h>\n",
        "#include <cub/cub.cuh>\n", "auto text = R\"(#include <unistd.h>)\";\n"}) {
    EXPECT_EQ(check_cuda_source(header + kHonestKernel, "kernel"), std::nullopt) << header;
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

TEST(CudaSourceRules, RefusesAnIncludeContinuedOntoTheNextLine) {
  auto why = check_cuda_source("#incl\\\nude <cublas_v2.h>\n" + kHonestKernel, "kernel");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("line 1: #include <cublas_v2.h> is not allowed"), std::string::npos) << *why;
}

TEST(CudaSourceRules, RefusesADigraphInclude) {
  auto why = check_cuda_source("%:include <thrust/sort.h>\n" + kHonestKernel, "kernel");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("line 1: #include <thrust/sort.h> is not allowed"), std::string::npos)
      << *why;
}

TEST(CudaSourceRules, RefusesAnEntryPointThatIsOnlyInACommentOrALiteral) {
  std::string launcher =
      "extern \"C\" void launch(const float* x, float* out) { silu<<<1, 256>>>(x, out); }\n";
  for (std::string hidden : {
           "// extern \"C\" void kernel(const float* x, float* out);\n",
           "/* extern \"C\" void kernel(const float* x, float* out) {} */\n",
           "// see below \\\nextern \"C\" void kernel(const float* x, float* out) {}\n",
           "const char* note = R\"(extern \"C\" void kernel(const float* x, float* out))\";\n",
       }) {
    auto why = check_cuda_source("#include \"accelopt_task.h\"\n" + hidden + launcher, "kernel");
    ASSERT_TRUE(why) << hidden;
    EXPECT_NE(why->find("does not define extern \"C\" void kernel"), std::string::npos) << *why;
  }
}

TEST(CudaSourceRules, RefusesDirectivesTheCpuRulesRefuse) {
  for (std::string directive :
       {"#import <cmath>\n", "#line 1 \"/etc/passwd\"\n", "#embed \"/etc/passwd\"\n",
        "#pragma GCC dependency \"/etc/passwd\"\n", "#define H <unistd.h>\n#include H\n",
        "#include \"/etc/passwd\"\n"}) {
    EXPECT_TRUE(check_cuda_source(directive + kHonestKernel, "kernel")) << directive;
  }
}

TEST(CudaSourceRules, NamesTheTaskHeaderOnlyBetweenQuotes) {
  EXPECT_TRUE(check_cuda_source("#include <accelopt_task.h>\n" + kEntryPoint, "kernel"));
}

TEST(CudaSourceRules, RefusesTheWordsTheCpuRulesRefuse) {
  for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kWord)) {
    std::string line = "const char* s = \"" + rule->spelling + "\";\n";
    EXPECT_TRUE(check_cuda_source(line + kHonestKernel, "kernel")) << rule->spelling;
  }
  EXPECT_TRUE(check_cuda_source(
      "__attribute__((constructor)) static void early() {}\n" + kHonestKernel, "kernel"));
}

TEST(CudaSourceRules, EveryTableRowIsWhatTheCheckDoes) {
  for (const SourceRule& rule : kernel_rules()) {
    if (rule.kind == RuleKind::kHeader) {
      std::string include = rule.example.empty() ? "<" + rule.spelling + ">" : rule.example;
      EXPECT_EQ(check_cuda_source("#include " + include + "\n" + kHonestKernel, "kernel"),
                std::nullopt)
          << include;
    } else if (rule.kind == RuleKind::kConstruct) {
      std::string source = kHonestKernel +
                           "__global__ void extra(const float* x, float* y) {\n"
                           "  int i = 0;\n" +
                           rule.example + "\n}\n";
      EXPECT_EQ(check_cuda_source(source, "kernel"), std::nullopt) << rule.example;
    } else if (rule.kind == RuleKind::kPragma) {
      std::optional<std::string> why =
          check_cuda_source("#pragma " + rule.spelling + "\n" + kHonestKernel, "kernel");
      EXPECT_EQ(why == std::nullopt, rule.allowed) << rule.spelling;
    }
  }
}

// Pragmas pass by allow-list (issue 44): one no row names is refused, as are the deny-list's.
TEST(CudaSourceRules, PragmasPassOnlyByTheAllowList) {
  EXPECT_EQ(check_cuda_source("#pragma unroll 4\n" + kHonestKernel, "kernel"), std::nullopt);
  for (std::string pragma : {"GCC pch_preprocess \"/etc/shadow\"", "GCC poison x",
                             "push_macro(\"M\")", "omp parallel"}) {
    std::optional<std::string> why =
        check_cuda_source("#pragma " + pragma + "\n" + kHonestKernel, "kernel");
    ASSERT_TRUE(why) << pragma;
    EXPECT_NE(why->find("only the pragmas the rules list as allowed pass"), std::string::npos)
        << *why;
  }
}

TEST(CudaSourceRules, NamesTheAllowedHeaders) {
  EXPECT_TRUE(is_allowed_header("cuda_runtime.h"));
  EXPECT_TRUE(is_allowed_header("cub/cub.cuh"));
  EXPECT_TRUE(is_allowed_header("accelopt_task.h"));
  EXPECT_FALSE(is_allowed_header("cublas_v2.h"));
  EXPECT_FALSE(is_allowed_header("thrust/sort.h"));
}

}  // namespace
}  // namespace accelopt::platform::cuda
