// The unified diff shown for a kernel against its parent and by `accelopt compare`.
#include "report/line_diff.h"

#include <gtest/gtest.h>

namespace accelopt::report {
namespace {

TEST(UnifiedDiff, EqualTextsGiveNothing) {
  EXPECT_EQ(unified_diff("a\nb\n", "a\nb\n", "x", "y"), "");
}

TEST(UnifiedDiff, OneChangedLineWithContext) {
  std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
  EXPECT_EQ(unified_diff(before, after, "a", "b"),
            "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
}

TEST(UnifiedDiff, DistantChangesMakeTwoHunks) {
  std::string before, after;
  for (int line = 0; line < 30; ++line) {
    before += std::to_string(line) + "\n";
    after += (line == 2 || line == 25 ? "x" : std::to_string(line)) + "\n";
  }
  std::string diff = unified_diff(before, after, "a", "b", 1);
  EXPECT_EQ(
      diff,
      "--- a\n+++ b\n@@ -2,3 +2,3 @@\n 1\n-2\n+x\n 3\n@@ -25,3 +25,3 @@\n 24\n-25\n+x\n 26\n");
}

TEST(UnifiedDiff, AddedLinesAtTheEnd) {
  EXPECT_EQ(unified_diff("a\n", "a\nb\nc\n", "a", "b", 0),
            "--- a\n+++ b\n@@ -1,0 +2,2 @@\n+b\n+c\n");
}

}  // namespace
}  // namespace accelopt::report
