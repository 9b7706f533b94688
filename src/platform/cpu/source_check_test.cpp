#include "platform/cpu/source_check.h"

#include <gtest/gtest.h>

namespace accelopt::platform::cpu {
namespace {

const std::string kBody =
    "\nextern \"C\" void kernel(const float* x, float* out) { out[0] = x[0]; }\n";

TEST(SourceCheck, AcceptsStandardHeadersIntrinsicsAndTheTaskHeader) {
  std::string source =
      "#include <vector>\n#include <cmath>\n#include <immintrin.h>\n#include <omp.h>\n"
      "#include \"accelopt_task.h\"  // shapes\n" +
      kBody;
  EXPECT_EQ(check_kernel_source(source, "kernel"), std::nullopt);
}

TEST(SourceCheck, RejectsOtherHeadersWithTheLine) {
  auto why = check_kernel_source("#include <vector>\n#include <unistd.h>\n" + kBody, "kernel");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("line 2"), std::string::npos);
  EXPECT_NE(why->find("<unistd.h>"), std::string::npos);
  EXPECT_TRUE(check_kernel_source("#include \"../secret.h\"\n" + kBody, "kernel"));
  EXPECT_TRUE(check_kernel_source("#define H <unistd.h>\n#include H\n" + kBody, "kernel"));
}

TEST(SourceCheck, IgnoresCommentsButNotStringsForForbiddenWords) {
  EXPECT_EQ(check_kernel_source("// a constructor would be bad\n/* #include <unistd.h> */" + kBody,
                                "kernel"),
            std::nullopt);
  EXPECT_TRUE(check_kernel_source("asm(\".incbin \\\"/etc/shadow\\\"\");" + kBody, "kernel"));
}

// Issue 44: a forbidden word in every spelling the compiler reads as it, not only as written.
TEST(SourceCheck, FindsForbiddenWordsInEverySpellingTheCompilerAccepts) {
  for (std::string spelling : {
           "__attribute__((__constructor__)) static void f() {}\n",
           "[[gnu::__destructor__]] static void f() {}\n",
           "__attribute__((section(\".init_arr\" \"ay\"))) static int f;\n",
           "__attribute__((section(\".init_arr\"\n  u8\"ay\"))) static int f;\n",
           "__attribute__((section(\".\\x69nit_array\"))) static int f;\n",
           "__attribute__((section(\".\\151nit_array\"))) static int f;\n",
           "__attribute__((section(R\"s(.fini_array)s\"))) static int f;\n",
           "__attribute__((section(\".ctors\"))) static int f;\n",
           "__attribute__((section(\".preinit_array\"))) static int f;\n",
           "asm(\".inc\" \"bin \\\"/etc/shadow\\\"\");\n",
           "bool b = __has_include__(<unistd.h>);\n",
       }) {
    EXPECT_TRUE(check_kernel_source(spelling + kBody, "kernel")) << spelling;
  }
  // Words that merely contain one, and literals that are not joined, pass.
  EXPECT_EQ(
      check_kernel_source(
          "int constructors_seen = 0; const char* a = \"init\"; int _array;\n" + kBody, "kernel"),
      std::nullopt);
}

TEST(SourceCheck, RequiresTheEntryPoint) {
  auto why = check_kernel_source(kBody, "other_name");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("entry point other_name"), std::string::npos);
}

TEST(SourceCheck, ReadsIncludesInEverySpellingTheLexerAllows) {
  for (std::string spelling :
       {"%:include \"/etc/passwd\"\n", "#import \"/etc/passwd\"\n", "#incl\\\nude <unistd.h>\n",
        "auto s = R\"x(\")x\";\n#include </etc/passwd>\n", "#include_next <stdio.h>\n",
        "#line 1 \"/etc/passwd\"\n"}) {
    EXPECT_TRUE(check_kernel_source(spelling + kBody, "kernel")) << spelling;
  }
  EXPECT_EQ(check_kernel_source("auto s = R\"(#include <unistd.h>)\";" + kBody, "kernel"),
            std::nullopt);
}

}  // namespace
}  // namespace accelopt::platform::cpu
