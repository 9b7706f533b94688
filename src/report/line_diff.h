// A unified diff of two texts by lines, for a kernel against its parent (report) or two runs' best
// kernels (compare). Kernels are a few hundred lines, so the plain longest-common-subsequence table
// is small enough; past kMaxCells it reports the texts as wholly replaced.
#pragma once

#include <string>

namespace accelopt::report {

// "--- a\n+++ b\n@@ -1,3 +1,4 @@\n line\n-old\n+new\n": hunks with `context` lines around each
// change; empty when the texts are equal.
std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& before_name, const std::string& after_name,
                         int context = 3);

}  // namespace accelopt::report
