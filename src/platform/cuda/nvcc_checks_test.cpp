// The checks of what nvcc read and wrote (issue 44), on text of nvcc's own shapes: no nvcc needed.
#include "platform/cuda/nvcc_checks.h"

#include <gtest/gtest.h>

namespace accelopt::platform::cuda {
namespace {

const std::vector<std::filesystem::path> kSystem = {"/usr/local/cuda", "/usr/include",
                                                    "/usr/lib/gcc"};

TEST(NvccChecks, ThePreprocessedKernelMayReadOnlySystemAndToolkitHeaders) {
  EXPECT_EQ(check_nvcc_preprocessed(
                "# 1 \"kernel.cu\"\n# 1 \"/usr/local/cuda/bin/../targets/x86_64-linux/include/"
                "cuda_runtime.h\" 1\n#pragma GCC diagnostic push\nint a;\n# 2 \"kernel.cu\" 2\n"
                "#pragma unroll\nint b;\n",
                kSystem),
            std::nullopt);
  auto why = check_nvcc_preprocessed("# 1 \"kernel.cu\"\n# 1 \"/etc/passwd\" 1\nroot\n", kSystem);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("'/etc/passwd'"), std::string::npos) << *why;
  EXPECT_TRUE(check_nvcc_preprocessed(
      "# 1 \"kernel.cu\"\n# 1 \"/usr/local/cuda/../../etc/passwd\" 1\nroot\n", kSystem));
}

TEST(NvccChecks, TheKernelsOwnLinesHoldOnlyAllowedPragmasAndNoForbiddenWord) {
  auto pragma = check_nvcc_preprocessed(
      "# 1 \"kernel.cu\"\n#pragma GCC pch_preprocess \"/usr/include/stdio.h\"\n", kSystem);
  ASSERT_TRUE(pragma);
  EXPECT_NE(pragma->find("only the pragmas the rules list as allowed pass"), std::string::npos);
  EXPECT_TRUE(check_nvcc_preprocessed("# 1 \"kernel.cu\"\n#include \"x\"\n", kSystem));
  auto word = check_nvcc_preprocessed(
      "# 1 \"kernel.cu\"\nasm(\".inc\" \"bin \\\"/etc/shadow\\\"\");\n", kSystem);
  ASSERT_TRUE(word);
  EXPECT_NE(word->find("after preprocessing: 'incbin' is not allowed"), std::string::npos) << *word;
}

TEST(NvccChecks, TheAssemblyHoldsNoDirectiveThatReadsFilesOrBuildsDirectives) {
  EXPECT_EQ(
      check_nvcc_assembly("\t.section .nv_fatbin,\"a\"\n\t.align 8\nfatbinData:\n\t.quad 1\n"),
      std::nullopt);
  EXPECT_EQ(check_nvcc_assembly(".version 9.0\n.target sm_90\n.visible .entry k()\n{\nret;\n}\n"),
            std::nullopt);
  for (std::string spelling :
       {".incbin \"/etc/shadow\"", ". INCLUDE \"x\"", ".irp n,bin", ".macro m", ".rept 3"}) {
    EXPECT_TRUE(check_nvcc_assembly("\tnop\n\t" + spelling + "\n")) << spelling;
  }
}

TEST(NvccChecks, ADiagnosticAboutAnotherFileNeverShowsItsText) {
  std::string log =
      "kernel.cu(3): error: identifier \"y\" is undefined\n  out[i] = y;\n          ^\n"
      "/usr/include/stdio.h: Assembler messages:\n"
      "/usr/include/stdio.h:27: Error: no such instruction: `__begin_decls'\n"
      "  quoted line of the other file\n"
      "kernel.cu:5:1: error: expected ';'\n";
  std::string trimmed = trim_nvcc_diagnostics(log);
  EXPECT_NE(trimmed.find("kernel.cu(3): error: identifier \"y\" is undefined\n  out[i] = y;"),
            std::string::npos)
      << trimmed;
  EXPECT_NE(trimmed.find("/usr/include/stdio.h:27: Error: (not shown"), std::string::npos)
      << trimmed;
  EXPECT_EQ(trimmed.find("__begin_decls"), std::string::npos) << trimmed;
  EXPECT_EQ(trimmed.find("quoted line of the other file"), std::string::npos) << trimmed;
  EXPECT_NE(trimmed.find("kernel.cu:5:1: error: expected ';'"), std::string::npos) << trimmed;
}

}  // namespace
}  // namespace accelopt::platform::cuda
