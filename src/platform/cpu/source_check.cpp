#include "platform/cpu/source_check.h"

#include <cctype>
#include <regex>
#include <set>

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

bool is_allowed_header(const std::string& name) {
  return allowed_headers().count(name) > 0 || name == task::kKernelHeaderName;
}

std::optional<std::string> check_kernel_source(const std::string& source,
                                               const std::string& entry_point) {
  if (source.size() > 512 * 1024) return "the source is larger than 512 KiB";
  static const std::regex angle_pattern(R"(^<([^<>]+)>$)");
  static const std::regex quote_pattern(R"re(^"([^"]+)"$)re");
  for (const kernel::Directive& directive : kernel::find_directives(source)) {
    std::string where = "line " + std::to_string(directive.line) + ": ";
    const std::string& name = directive.name;
    if (name == "include_next" || name == "embed" || name == "line" ||
        (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0])))) {
      return where + "#" + name + " is not allowed in a kernel";
    }
    if (name == "pragma" &&
        std::regex_search(directive.rest,
                          std::regex(R"(^(GCC|clang)\s+(system_header|dependency))"))) {
      return where + "this #pragma is not allowed in a kernel";
    }
    if (name != "include" && name != "import") continue;
    std::smatch header;
    if (std::regex_match(directive.rest, header, angle_pattern)) {
      if (!allowed_headers().count(header[1].str())) {
        return where + "#include <" + header[1].str() +
               "> is not allowed; a kernel may include only the C/C++ standard library, "
               "<immintrin.h> (and the other x86 intrinsic headers), <omp.h> and \"" +
               task::kKernelHeaderName + "\"";
      }
    } else if (std::regex_match(directive.rest, header, quote_pattern)) {
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
  std::string code = strip_comments_and_literals(source);
  std::regex entry_pattern("\\b" + entry_point + "\\s*\\(");
  if (!std::regex_search(code, entry_pattern)) {
    return "the source does not define the entry point " + entry_point + " (extern \"C\" void " +
           entry_point + "(...), as declared in " + task::kKernelHeaderName + ")";
  }
  return std::nullopt;
}

}  // namespace accelopt::platform::cpu
