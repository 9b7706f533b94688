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

// A constexpr runaway burns CPU: it ends at its CPU limit as the kernel's failure. The wall
// backstop is 30 times the limit, so only a machine that gives the compiler less than a thirtieth
// of a core could call it busy.
TEST_F(CompilerTest, StopsARunawayCompileAtItsCpuLimit) {
  CompilerOptions limited = options();
  limited.cpu_limit = std::chrono::seconds(2);
  limited.wall_factor = 30;
  Compiler compiler(limited);
  std::string source =
      "#include \"accelopt_task.h\"\nconstexpr long spin() { long t = 0; for (long i = 0; i < "
      "100000; ++i)"
      " for (long j = 0; j < 100000; ++j) t += i ^ j; return t; }\n"
      "extern \"C\" void kernel(float* out) { constexpr long v = spin(); out[0] = v; }\n";
  CompileResult result = compiler.compile(source, kHeader);
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.timed_out);
  EXPECT_FALSE(result.machine_busy);
  EXPECT_GE(result.cpu_seconds, 1.8);
  EXPECT_NE(result.diagnostics.find("2 s limit of CPU time"), std::string::npos)
      << result.diagnostics;
}

// A compiler in place of g++ that sleeps instead of compiling kernel.cpp (while a `once` file is
// missing, if given: then it makes it), as a compiler does on a machine too busy to give it a
// core: wall time passes, CPU time does not.
std::filesystem::path sleeping_compiler(const TempDir& directory,
                                        const std::filesystem::path& once = {}) {
  std::filesystem::path script = directory.path() / "sleepy-g++";
  std::string condition = once.empty() ? "true" : "[ ! -e " + once.string() + " ]";
  std::string make_once = once.empty() ? "" : "touch " + once.string() + "; ";
  write_file_atomic(script, "#!/bin/sh\nfor a in \"$@\"; do\n  if [ \"$a\" = kernel.cpp ] && " +
                                condition + "; then " + make_once +
                                "exec sleep 60; fi\ndone\nexec /usr/bin/g++ \"$@\"\n");
  std::filesystem::permissions(
      script, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                  std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                  std::filesystem::perms::others_exec);
  // As root the sandboxed compiler runs as nobody, who must reach the script.
  std::filesystem::permissions(directory.path(), std::filesystem::perms::owner_all |
                                                     std::filesystem::perms::group_read |
                                                     std::filesystem::perms::group_exec |
                                                     std::filesystem::perms::others_read |
                                                     std::filesystem::perms::others_exec);
  return script;
}

const std::string kPlainKernel =
    "#include \"accelopt_task.h\"\nextern \"C\" void kernel(float* out) { out[0] = 1; }\n";

// Issue 45: a compile slow only because the machine is busy was a COMPILE_ERROR, "ran past its
// 60 s limit", and `accelopt bench` called the shipped baseline broken.
TEST_F(CompilerTest, ABusyMachineIsRetriedThenNamedNotBlamedOnTheKernel) {
  TempDir bin("accelopt-sleepy-compiler");
  CompilerOptions busy = options();
  busy.compiler = sleeping_compiler(bin).string();
  busy.cpu_limit = std::chrono::seconds(1);
  busy.wall_factor = 2;
  busy.busy_pause = std::chrono::milliseconds(1);
  Compiler compiler(busy);
  CompileResult result = compiler.compile(kPlainKernel, kHeader);
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.machine_busy);
  EXPECT_FALSE(result.timed_out) << "the kernel used no CPU time";
  EXPECT_EQ(result.tries, 1 + busy.busy_retries);
  EXPECT_LT(result.cpu_seconds, 0.5);
  EXPECT_NE(result.diagnostics.find("the machine was busy"), std::string::npos)
      << result.diagnostics;
  EXPECT_NE(result.diagnostics.find("not the kernel's fault"), std::string::npos);
  EXPECT_FALSE(compiler.compile(kPlainKernel, kHeader).cached) << "a busy outcome is never kept";
}

TEST_F(CompilerTest, ACompileBusyOnceSucceedsOnItsRetry) {
  TempDir bin("accelopt-sleepy-compiler");
  CompilerOptions busy = options();
  busy.compiler = sleeping_compiler(bin, bin.path() / "slept-once").string();
  busy.isolate = false;  // the script leaves its mark outside the compiler's sandbox
  // The sleep spends the 8 s backstop; the real compile after it has as long, and half as much
  // CPU time, for a kernel that takes half a second on a quiet machine.
  busy.cpu_limit = std::chrono::seconds(4);
  busy.wall_factor = 2;
  busy.busy_pause = std::chrono::milliseconds(1);
  Compiler compiler(busy);
  CompileResult result = compiler.compile(kPlainKernel, kHeader);
  EXPECT_TRUE(result.ok) << result.diagnostics;
  EXPECT_FALSE(result.machine_busy);
  EXPECT_EQ(result.tries, 2);
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
