// The C++ scanner reads the spellings that translation phases 1-3 allow as the compiler does.
#include "kernel/source_text.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace accelopt::kernel {
namespace {

TEST(SourceText, StripKeepsLineStructureAndPositions) {
  std::string source = "a /* x\ny */ b // c\n\"s\\\"t\" d";
  std::string stripped = strip_comments_and_literals(source);
  EXPECT_EQ(stripped.size(), source.size());
  EXPECT_EQ(std::count(stripped.begin(), stripped.end(), '\n'), 2);
  EXPECT_EQ(stripped.find('x'), std::string::npos);
  EXPECT_EQ(stripped.find('t'), std::string::npos);
  EXPECT_NE(stripped.find('d'), std::string::npos);
  EXPECT_NE(strip_comments_and_literals(source, true).find("s\\\"t"), std::string::npos);
}

TEST(SourceText, RawStringsHideQuotesAndCommentOpeners) {
  // A plain scanner ends the literal at the first quote and takes `//` for a comment.
  std::string source = "auto s = R\"x(a \" // b)\" c)x\"; int after;";
  std::string stripped = strip_comments_and_literals(source);
  EXPECT_NE(stripped.find("int after;"), std::string::npos);
  EXPECT_EQ(stripped.find('b'), std::string::npos);
  EXPECT_NE(strip_comments_and_literals("u8R\"(/*)\" int y;").find("int y;"), std::string::npos);
}

TEST(SourceText, DigitSeparatorsAreNotCharacterLiterals) {
  std::string stripped = strip_comments_and_literals("int n = 1'000'000; char c = 'q'; int m;");
  EXPECT_NE(stripped.find("1'000'000"), std::string::npos);
  EXPECT_EQ(stripped.find('q'), std::string::npos);
  EXPECT_NE(stripped.find("int m;"), std::string::npos);
}

TEST(SourceText, SplicesContinueCommentsAndJoinDirectives) {
  std::string source = "// comment \\\n#include <x>\n#incl\\\nude <y>\n";
  std::vector<Directive> directives = find_directives(source);
  ASSERT_EQ(directives.size(), 1u);
  EXPECT_EQ(directives[0].name, "include");
  EXPECT_EQ(directives[0].rest, "<y>");
  EXPECT_EQ(directives[0].line, 3);
}

TEST(SourceText, DirectivesInEverySpelling) {
  std::string source =
      "%:include <a>\n"
      "  #  import \"b\"\n"
      "#/* c */include <c>\n"
      "auto r = R\"(\n#include <not_a_directive>\n)\";\n"
      "#pragma omp parallel\n";
  std::vector<Directive> directives = find_directives(source);
  ASSERT_EQ(directives.size(), 4u);
  EXPECT_EQ(directives[0].name, "include");
  EXPECT_EQ(directives[1].name, "import");
  EXPECT_EQ(directives[1].rest, "\"b\"");
  EXPECT_EQ(directives[2].name, "include");
  EXPECT_EQ(directives[2].rest, "<c>");
  EXPECT_EQ(directives[3].name, "pragma");
  EXPECT_EQ(directives[3].line, 7);
}

TEST(SourceText, NormalizeIgnoresCommentsWhitespaceAndSplices) {
  EXPECT_EQ(normalize_source("int  x = 1;  // one\n/* block\n comment */int y=2;\n"),
            normalize_source("int x=1;\n\n\nint y = 2; // two\n"));
  EXPECT_EQ(normalize_source("int x = \\\n  1;"), "int x=1;");
  EXPECT_NE(normalize_source("s = \"a  b\";"), normalize_source("s = \"a b\";"));
  EXPECT_EQ(normalize_source("#include <a>\n  #define X 1\n"), "#include<a>\n#define X 1");
}

TEST(SourceText, CodeTokensSkipCommentsAndKeepLiteralsWhole) {
  using Tokens = std::vector<std::string>;
  EXPECT_EQ(
      code_tokens("extern \"C\" __host__ void kernel(float* x);"),
      (Tokens{"extern", "\"C\"", "__host__", "void", "kernel", "(", "float", "*", "x", ")", ";"}));
  EXPECT_EQ(code_tokens("ker\\\nnel /* void kernel( */ // kernel(\n(x)"),
            (Tokens{"kernel", "(", "x", ")"}));
  EXPECT_EQ(code_tokens("f(\"a \\\" b\", 'q', R\"x(void kernel()x\", u8\"s\")"),
            (Tokens{"f", "(", "\"a \\\" b\"", ",", "'q'", ",", "R", "\"x(void kernel()x\"", ",",
                    "u8", "\"s\"", ")"}));
  EXPECT_EQ(code_tokens("n = 1'000.5f;\"\"\"\""),
            (Tokens{"n", "=", "1'000.5f", ";", "\"\"", "\"\""}));
  EXPECT_EQ(code_tokens("%:include <a.h>\n"),
            (Tokens{"%", ":", "include", "<", "a", ".", "h", ">"}));
  EXPECT_EQ(code_tokens("__global__ void k<<<1, 2>>>();"),
            (Tokens{"__global__", "void", "k", "<", "<", "<", "1", ",", "2", ">", ">", ">", "(",
                    ")", ";"}));
}

}  // namespace
}  // namespace accelopt::kernel
