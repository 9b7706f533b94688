// Sources that differ only in comments and whitespace are the same kernel.
#include "search/normalize.h"

#include <gtest/gtest.h>

namespace accelopt::search {
namespace {

TEST(Normalize, IgnoresCommentsAndWhitespace) {
  std::string a = "int  x = 1;  // one\n/* block\n comment */int y=2;\n";
  std::string b = "int x=1;\n\n\nint y = 2; // two\n";
  EXPECT_EQ(normalized_hash(a), normalized_hash(b));
  EXPECT_NE(normalized_hash("int x = 1;"), normalized_hash("int x = 2;"));
  EXPECT_NE(normalized_hash("unsigned int x;"), normalized_hash("unsignedint x;"));
  EXPECT_NE(normalized_hash("s = \"a  b\";"), normalized_hash("s = \"a b\";"));
  EXPECT_EQ(normalize_source("#include <a>\n  #define X 1\n"), "#include<a>\n#define X 1");
}

}  // namespace
}  // namespace accelopt::search
