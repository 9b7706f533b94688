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

TEST(SourceCheck, RequiresTheEntryPoint) {
  auto why = check_kernel_source(kBody, "other_name");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("entry point other_name"), std::string::npos);
}

TEST(SourceCheck, StripKeepsLineStructure) {
  std::string source = "a /* x\ny */ b // c\n\"s\\\"t\" d";
  std::string stripped = strip_comments_and_literals(source);
  EXPECT_EQ(std::count(stripped.begin(), stripped.end(), '\n'), 2);
  EXPECT_EQ(stripped.find('x'), std::string::npos);
  EXPECT_EQ(stripped.find('t'), std::string::npos);
  EXPECT_NE(stripped.find('d'), std::string::npos);
}

}  // namespace
}  // namespace accelopt::platform::cpu
