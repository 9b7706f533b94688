#include "platform/cpu/source_check.h"

#include <regex>
#include <set>
#include <sstream>

#include "task/abi.h"

namespace accelopt::platform::cpu {
namespace {

const std::set<std::string>& allowed_headers() {
  static const std::set<std::string> headers = {
      // C++ standard library
      "algorithm", "any", "array", "atomic", "barrier", "bit", "bitset", "cassert", "cctype",
      "csignal", "csetjmp", "cerrno", "cfenv", "cfloat", "charconv", "chrono", "cinttypes",
      "climits", "clocale", "cmath", "compare", "complex", "concepts", "condition_variable",
      "cstdarg", "cstdbool", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "ctime",
      "cwchar", "cwctype", "deque", "exception", "execution", "expected", "format", "forward_list",
      "fstream", "functional", "future", "initializer_list", "iomanip", "ios", "iosfwd", "iostream",
      "istream", "iterator", "latch", "limits", "list", "locale", "map", "memory",
      "memory_resource", "mutex", "new", "numbers", "numeric", "optional", "ostream", "queue",
      "random", "ranges", "ratio", "regex", "scoped_allocator", "semaphore", "set", "shared_mutex",
      "source_location", "span", "sstream", "stack", "stdexcept", "stop_token", "streambuf",
      "string", "string_view", "syncstream", "system_error", "thread", "tuple", "type_traits",
      "typeindex", "typeinfo", "unordered_map", "unordered_set", "utility", "valarray", "variant",
      "vector", "version",
      // C standard library
      "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h", "limits.h",
      "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h", "stdarg.h", "stdbool.h",
      "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h", "time.h", "wchar.h", "wctype.h",
      // intrinsics and OpenMP
      "immintrin.h", "x86intrin.h", "xmmintrin.h", "emmintrin.h", "pmmintrin.h", "tmmintrin.h",
      "smmintrin.h", "nmmintrin.h", "wmmintrin.h", "omp.h"};
  return headers;
}

// Words that have no business in a kernel: they load files at compile time or run code at load
// time.
const std::set<std::string>& forbidden_words() {
  static const std::set<std::string> words = {"incbin",       "constructor", "destructor",
                                              "init_array",   "fini_array",  "__has_include",
                                              "include_next", "syscall"};
  return words;
}

}  // namespace

std::string strip_comments_and_literals(const std::string& source, bool keep_literals) {
  std::string out = source;
  enum class State { kCode, kLineComment, kBlockComment, kString, kChar };
  State state = State::kCode;
  for (size_t i = 0; i < out.size(); ++i) {
    char c = source[i];
    char next = i + 1 < source.size() ? source[i + 1] : '\0';
    switch (state) {
      case State::kCode:
        if (c == '/' && next == '/') {
          state = State::kLineComment;
          out[i] = ' ';
        } else if (c == '/' && next == '*') {
          state = State::kBlockComment;
          out[i] = ' ';
          out[++i] = ' ';
        } else if (c == '"') {
          state = State::kString;
        } else if (c == '\'') {
          state = State::kChar;
        }
        break;
      case State::kLineComment:
        if (c == '\n') {
          state = State::kCode;
        } else {
          out[i] = ' ';
        }
        break;
      case State::kBlockComment:
        if (c == '*' && next == '/') {
          out[i] = ' ';
          out[++i] = ' ';
          state = State::kCode;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
      case State::kString:
      case State::kChar:
        if (keep_literals) {
          if (c == '\\' && next != '\0') {
            ++i;
          } else if ((state == State::kString && c == '"') ||
                     (state == State::kChar && c == '\'')) {
            state = State::kCode;
          }
        } else if (c == '\\' && next != '\0') {
          out[i] = ' ';
          if (next != '\n') out[++i] = ' ';
        } else if ((state == State::kString && c == '"') || (state == State::kChar && c == '\'')) {
          state = State::kCode;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
    }
  }
  return out;
}

std::optional<std::string> check_kernel_source(const std::string& source,
                                               const std::string& entry_point) {
  if (source.size() > 512 * 1024) return "the source is larger than 512 KiB";
  // Include lines are read from the original (string contents matter there), other rules from code.
  std::string code = strip_comments_and_literals(source);
  std::istringstream lines(code);
  std::istringstream original(source);
  std::string line, original_line;
  int number = 0;
  static const std::regex include_pattern(R"(^\s*#\s*include\s*(.*)$)");
  static const std::regex angle_pattern(R"(^<([^<>]+)>\s*$)");
  static const std::regex quote_pattern(R"re(^"([^"]+)"\s*$)re");
  while (std::getline(lines, line)) {
    std::getline(original, original_line);
    ++number;
    std::smatch match;
    if (!std::regex_match(line, match, include_pattern)) continue;
    std::string target = std::regex_replace(original_line, std::regex(R"(^\s*#\s*include\s*)"), "");
    target = std::regex_replace(target, std::regex(R"(\s*(//.*|/\*.*)?$)"), "");
    std::smatch header;
    std::string where = "line " + std::to_string(number) + ": ";
    if (std::regex_match(target, header, angle_pattern)) {
      if (!allowed_headers().count(header[1].str())) {
        return where + "#include <" + header[1].str() +
               "> is not allowed; a kernel may include only the C/C++ standard library, "
               "<immintrin.h> (and the other x86 intrinsic headers), <omp.h> and \"" +
               task::kKernelHeaderName + "\"";
      }
    } else if (std::regex_match(target, header, quote_pattern)) {
      if (header[1].str() != task::kKernelHeaderName) {
        return where + "#include \"" + header[1].str() +
               "\" is not allowed; the only local header is \"" + task::kKernelHeaderName + "\"";
      }
    } else {
      return where + "#include must name a header directly (<name> or \"" +
             std::string(task::kKernelHeaderName) + "\"), not through a macro";
    }
  }
  // Words are looked for in string literals too: inline assembly hides in them.
  std::string code_and_literals = strip_comments_and_literals(source, /*keep_literals=*/true);
  static const std::regex word_pattern(R"([A-Za-z_][A-Za-z0-9_]*)");
  for (auto it =
           std::sregex_iterator(code_and_literals.begin(), code_and_literals.end(), word_pattern);
       it != std::sregex_iterator(); ++it) {
    std::string word = it->str();
    if (forbidden_words().count(word)) {
      return "'" + word +
             "' is not allowed in a kernel (it reads files at compile time, runs code "
             "when the library loads, or talks to the operating system directly)";
    }
  }
  static const std::regex pragma_pattern(
      R"(#\s*pragma\s+(GCC|clang)\s+(system_header|dependency))");
  if (std::regex_search(code, pragma_pattern)) {
    return "this #pragma is not allowed in a kernel";
  }
  std::regex entry_pattern("\\b" + entry_point + "\\s*\\(");
  if (!std::regex_search(code, entry_pattern)) {
    return "the source does not define the entry point " + entry_point + " (extern \"C\" void " +
           entry_point + "(...), as declared in " + task::kKernelHeaderName + ")";
  }
  return std::nullopt;
}

}  // namespace accelopt::platform::cpu
