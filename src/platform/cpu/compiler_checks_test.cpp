// The checks between the compiler's stages read the compiler's output, whatever the source's
// spelling was.
#include "platform/cpu/compiler_checks.h"

#include <gtest/gtest.h>

namespace accelopt::platform::cpu {
namespace {

const std::vector<std::filesystem::path> kSearch = {"/usr/include/c++/12", "/usr/include",
                                                    "/usr/lib/gcc/x86_64-linux-gnu/12/include"};

TEST(CheckPreprocessed, AcceptsAllowedHeadersAndTheirOwnIncludes) {
  std::string ii =
      "# 0 \"kernel.cpp\"\n# 0 \"<built-in>\"\n# 1 \"/usr/include/stdc-predef.h\" 1 3 4\n"
      "# 0 \"<command-line>\" 2\n# 1 \"kernel.cpp\"\n"
      "# 1 \"/usr/include/c++/12/vector\" 1 3\n"
      "# 1 \"/usr/include/c++/12/bits/stl_vector.h\" 1 3\n#pragma GCC visibility push(default)\n"
      "# 2 \"/usr/include/c++/12/vector\" 2 3\n# 2 \"kernel.cpp\" 2\n"
      "# 1 \"accelopt_task.h\" 1\n# 1 \"/usr/include/c++/12/cstdint\" 1 3\n"
      "# 2 \"accelopt_task.h\" 2\n# 3 \"kernel.cpp\" 2\n#pragma omp parallel for\nint x;\n";
  EXPECT_EQ(check_preprocessed(ii, kSearch), std::nullopt);
}

TEST(CheckPreprocessed, RefusesOtherFilesHoweverTheyCameIn) {
  // What `#include "/etc/passwd"`, `%:include`, `#import` and `#line` all leave behind.
  EXPECT_TRUE(check_preprocessed("# 1 \"kernel.cpp\"\n# 1 \"/etc/passwd\" 1\nroot\n", kSearch));
  EXPECT_TRUE(check_preprocessed("# 1 \"kernel.cpp\"\n# 7 \"/etc/shadow\"\nx;\n", kSearch));
  EXPECT_TRUE(check_preprocessed("# 1 \"kernel.cpp\"\n# 1 \"/usr/share/dict/words\" 1\n", kSearch));
  auto direct = check_preprocessed(
      "# 1 \"kernel.cpp\"\n# 1 \"/usr/include/x86_64-linux-gnu/sys/socket.h\" 1 3 4\n", kSearch);
  ASSERT_TRUE(direct);
  EXPECT_NE(direct->find("sys/socket.h"), std::string::npos) << *direct;
  EXPECT_TRUE(check_preprocessed("# 1 \"kernel.cpp\"\n# 1 \"kernel.cpp\" 1\n", kSearch));
}

TEST(CheckPreprocessed, RefusesDirectivesBuiltByMacrosAndFileReadingPragmas) {
  EXPECT_TRUE(check_preprocessed("# 1 \"kernel.cpp\"\n# include \"x\"\n", kSearch));
  EXPECT_TRUE(check_preprocessed("# 1 \"kernel.cpp\"\n%:include \"x\"\n", kSearch));
  EXPECT_TRUE(
      check_preprocessed("# 1 \"kernel.cpp\"\n#pragma GCC dependency \"/etc/shadow\"\n", kSearch));
}

// The kernel's own lines are checked for forbidden words as the compiler reads them: a macro can
// paste a word the source never spells (issue 44). System headers' lines are theirs.
TEST(CheckPreprocessed, RefusesForbiddenWordsBuiltByMacros) {
  auto why = check_preprocessed(
      "# 1 \"kernel.cpp\"\n__attribute__((constructor)) static void f() {}\n", kSearch);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("after preprocessing: 'constructor' is not allowed"), std::string::npos)
      << *why;
  EXPECT_TRUE(check_preprocessed(
      "# 1 \"kernel.cpp\"\nint x __attribute__((section(\".init_arr\" \"ay\")));\n", kSearch));
  EXPECT_EQ(check_preprocessed("# 1 \"kernel.cpp\"\n# 1 \"/usr/include/c++/12/vector\" 1\n"
                               "__attribute__((constructor)) void g();\n# 2 \"kernel.cpp\" 2\n"
                               "int y;\n",
                               kSearch),
            std::nullopt);
}

TEST(CheckAssembly, AcceptsWhatCompilersEmit) {
  std::string s =
      "\t.file\t\"kernel.cpp\"\n\t.text\n\t.p2align 4\n\t.globl\tkernel\n\t.type\tkernel, "
      "@function\nkernel:\n.LFB0:\n\t.cfi_startproc\n\tvmovups\t(%rdi), %ymm0 # load\n"
      "\tret\n\t.cfi_endproc\n\t.section\t.rodata.cst4,\"aM\",@progbits,4\n.LC0:\n\t.long\t1\n"
      "\t.string \"a;b#c\"\n\t.ident\t\"GCC\"\n\t.section\t.note.GNU-stack,\"\",@progbits\n";
  EXPECT_EQ(check_assembly(s), std::nullopt);
}

TEST(CheckAssembly, RefusesFileReadersInEverySpelling) {
  for (std::string s :
       {"\t.incbin \"/etc/shadow\"\n", "x: .INCBIN \"/etc/shadow\"\n", "nop; .IncBin \"f\"\n",
        "\t.include \"/etc/shadow\"\n", "\t.macro m a\n\t.inc\\a \"f\"\n\t.endm\n\tm bin\n",
        "\t.irp d,bin\n\t.inc\\d \"f\"\n\t.endr\n", "\tmovb $'\", %al; .incbin \"f\"\n",
        "\t.altmacro\n"}) {
    EXPECT_TRUE(check_assembly(s)) << s;
  }
  EXPECT_TRUE(check_assembly("\t.fill 8, 1, 0\n"));  // not on the list: refused too
}

TEST(TrimDiagnostics, KeepsOnlyTheFirstErrors) {
  std::string log;
  for (int i = 1; i <= 20; ++i)
    log += "kernel.cpp:" + std::to_string(i) + ":1: error: bad\n  code\n  ^\n";
  std::string trimmed = trim_diagnostics(log, 3);
  EXPECT_NE(trimmed.find("kernel.cpp:3:1"), std::string::npos);
  EXPECT_EQ(trimmed.find("kernel.cpp:4:1"), std::string::npos);
  EXPECT_NE(trimmed.find("more errors not shown"), std::string::npos);
}

TEST(TrimDiagnostics, NeverQuotesAnotherFile) {
  std::string log =
      "In file included from kernel.cpp:1:\n"
      "/etc/passwd:1:5: error: expected unqualified-id\n"
      "    1 | root:x:0:0:root:/root:/bin/bash\n"
      "      |     ^\n"
      "kernel.cpp:4:3: error: 'y' was not declared\n"
      "    4 |   y = 1;\n";
  std::string trimmed = trim_diagnostics(log);
  EXPECT_EQ(trimmed.find("/root:/bin/bash"), std::string::npos) << trimmed;
  EXPECT_NE(trimmed.find("/etc/passwd:1:5: error"), std::string::npos) << trimmed;
  EXPECT_NE(trimmed.find("y = 1;"), std::string::npos) << trimmed;
}

}  // namespace
}  // namespace accelopt::platform::cpu
