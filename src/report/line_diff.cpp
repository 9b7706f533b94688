#include "report/line_diff.h"

#include <fmt/format.h>

#include <sstream>
#include <vector>

namespace accelopt::report {
namespace {

constexpr size_t kMaxCells = 16'000'000;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  std::string line;
  while (std::getline(stream, line)) lines.push_back(line);
  return lines;
}

// One line of the edit script: ' ' kept, '-' removed, '+' added; indices into both texts.
struct Edit {
  char op;
  size_t before, after;
};

std::vector<Edit> edit_script(const std::vector<std::string>& a,
                              const std::vector<std::string>& b) {
  std::vector<Edit> edits;
  size_t n = a.size(), m = b.size();
  if ((n + 1) * (m + 1) > kMaxCells) {
    for (size_t i = 0; i < n; ++i) edits.push_back({'-', i, 0});
    for (size_t j = 0; j < m; ++j) edits.push_back({'+', n, j});
    return edits;
  }
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      edits.push_back({' ', i++, j++});
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      edits.push_back({'-', i++, j});  // removals before additions, as diff -u prints them
    } else {
      edits.push_back({'+', i, j++});
    }
  }
  return edits;
}

}  // namespace

std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& before_name, const std::string& after_name,
                         int context) {
  std::vector<std::string> a = split_lines(before), b = split_lines(after);
  std::vector<Edit> edits = edit_script(a, b);
  std::string out;
  size_t index = 0;
  auto changed = [&](size_t at) { return edits[at].op != ' '; };
  while (index < edits.size()) {
    while (index < edits.size() && !changed(index)) ++index;
    if (index == edits.size()) break;
    // A hunk: from `context` lines before this change to `context` lines after the last change
    // that is at most 2 * context kept lines away.
    size_t start = index >= static_cast<size_t>(context) ? index - context : 0;
    size_t end = index;
    while (true) {
      while (end < edits.size() && changed(end)) ++end;
      size_t next = end;
      while (next < edits.size() && !changed(next)) ++next;
      if (next < edits.size() && next - end <= static_cast<size_t>(2 * context)) {
        end = next;
        continue;
      }
      end = std::min(edits.size(), end + context);
      break;
    }
    size_t before_count = 0, after_count = 0;
    for (size_t at = start; at < end; ++at) {
      if (edits[at].op != '+') ++before_count;
      if (edits[at].op != '-') ++after_count;
    }
    if (out.empty()) out = fmt::format("--- {}\n+++ {}\n", before_name, after_name);
    out += fmt::format("@@ -{},{} +{},{} @@\n", edits[start].before + (before_count ? 1 : 0),
                       before_count, edits[start].after + (after_count ? 1 : 0), after_count);
    for (size_t at = start; at < end; ++at) {
      const Edit& edit = edits[at];
      out += edit.op;
      out += edit.op == '+' ? b[edit.after] : a[edit.before];
      out += '\n';
    }
    index = end;
  }
  return out;
}

}  // namespace accelopt::report
