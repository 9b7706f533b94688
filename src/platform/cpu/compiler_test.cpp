#include "platform/cpu/compiler.h"

#include <gtest/gtest.h>

#include "common/files.h"

namespace accelopt::platform::cpu {
namespace {

const std::string kHeader = "#pragma once\nextern \"C\" void kernel(float* out);\n";

class CompilerTest : public testing::Test {
 protected:
  TempDir cache_{"accelopt-compiler-test"};
  CompilerOptions options() {
    CompilerOptions options;
    options.cache_directory = cache_.path();
    return options;
  }
};

TEST_F(CompilerTest, CompilesOnceAndServesTheCacheAfter) {
  Compiler compiler(options());
  std::string source =
      "#include \"accelopt_task.h\"\nextern \"C\" void kernel(float* out) {\n"
      "  for (int i = 0; i < 1024; ++i) out[i] = i;\n}\n";
  CompileResult first = compiler.compile(source, kHeader);
  ASSERT_TRUE(first.ok) << first.diagnostics;
  EXPECT_FALSE(first.cached);
  EXPECT_TRUE(std::filesystem::exists(first.library));
  CompileResult second = compiler.compile(source, kHeader);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(first.key, second.key);
  EXPECT_NE(compiler.compile(source, kHeader, {"-DVARIANT"}).key, first.key);
  EXPECT_NE(first.remarks.find("vectorized"), std::string::npos) << first.remarks;
}

TEST_F(CompilerTest, KeepsTheFirstErrorsWithLineNumbers) {
  Compiler compiler(options());
  std::string source =
      "#include \"accelopt_task.h\"\nextern \"C\" void kernel(float* out) {\n"
      "  out[0] = undefined_name;\n}\n";
  CompileResult result = compiler.compile(source, kHeader);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find("kernel.cpp:3:"), std::string::npos) << result.diagnostics;
  EXPECT_NE(result.diagnostics.find("undefined_name"), std::string::npos);
  EXPECT_EQ(result.diagnostics.find("/tmp/"), std::string::npos) << "scratch paths leak";
}

TEST_F(CompilerTest, StopsARunawayCompileAtItsDeadline) {
  CompilerOptions limited = options();
  limited.timeout = std::chrono::seconds(2);
  Compiler compiler(limited);
  std::string source =
      "#include \"accelopt_task.h\"\nconstexpr long spin() { long t = 0; for (long i = 0; i < "
      "100000; ++i)"
      " for (long j = 0; j < 100000; ++j) t += i ^ j; return t; }\n"
      "extern \"C\" void kernel(float* out) { constexpr long v = spin(); out[0] = v; }\n";
  CompileResult result = compiler.compile(source, kHeader);
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.timed_out);
  EXPECT_NE(result.diagnostics.find("2 s limit"), std::string::npos) << result.diagnostics;
}

TEST_F(CompilerTest, OnlyTrustedLibraryCodeMayIncludeALibraryHeader) {
  if (!std::filesystem::exists("/usr/include/dnnl.h")) GTEST_SKIP() << "no oneDNN headers";
  Compiler compiler(options());
  std::string source =
      "#include <dnnl.h>\n#include \"accelopt_task.h\"\nextern \"C\" void kernel(float* out) {\n"
      "  out[0] = static_cast<float>(dnnl_version()->major);\n}\n";
  CompileResult untrusted = compiler.compile(source, kHeader, {"-ldnnl"});
  ASSERT_TRUE(untrusted.rejection);
  EXPECT_NE(untrusted.rejection->find("#include <dnnl.h> is not allowed"), std::string::npos);
  CompileResult trusted =
      compiler.compile(source, kHeader, {"-ldnnl"}, SourceTrust::kTrustedLibrary);
  EXPECT_TRUE(trusted.ok) << trusted.diagnostics;
  EXPECT_NE(trusted.key, untrusted.key);  // a refusal is never served as the library, or back
  EXPECT_TRUE(compiler.compile(source, kHeader, {"-ldnnl"}).rejection);
}

}  // namespace
}  // namespace accelopt::platform::cpu
