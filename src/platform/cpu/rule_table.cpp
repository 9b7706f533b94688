#include "platform/cpu/rule_table.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <set>

#include "platform/cpu/cpu_platform.h"
#include "task/abi.h"

namespace accelopt::platform::cpu {
namespace {

// Pragmas a kernel may write: an allow-list, since a compiler's pragmas are many, some read files
// (GCC dependency, pch_preprocess) and new ones arrive with every release. Matched by their
// leading words. Not GCC optimize: it takes command-line options.
constexpr const char* kAllowedPragmas[] = {"omp",
                                           "GCC unroll",
                                           "GCC ivdep",
                                           "GCC novector",
                                           "GCC target",
                                           "GCC push_options",
                                           "GCC pop_options",
                                           "GCC reset_options",
                                           "GCC diagnostic",
                                           "clang loop",
                                           "clang diagnostic",
                                           "clang fp",
                                           "STDC",
                                           "unroll",
                                           "nounroll",
                                           "pack",
                                           "once"};

std::string allowed_pragma_list() {
  std::string list;
  for (const char* pragma : kAllowedPragmas)
    list += (list.empty() ? "" : ", ") + std::string(pragma);
  return list;
}

std::vector<SourceRule> make_rules() {
  std::vector<SourceRule> rules;
  add_headers(rules, "C++ standard library",
              {"algorithm",
               "any",
               "array",
               "atomic",
               "barrier",
               "bit",
               "bitset",
               "cassert",
               "cctype",
               "csignal",
               "csetjmp",
               "cerrno",
               "cfenv",
               "cfloat",
               "charconv",
               "chrono",
               "cinttypes",
               "climits",
               "clocale",
               "cmath",
               "compare",
               "complex",
               "concepts",
               "condition_variable",
               "cstdarg",
               "cstdbool",
               "cstddef",
               "cstdint",
               "cstdio",
               "cstdlib",
               "cstring",
               "ctime",
               "cwchar",
               "cwctype",
               "deque",
               "exception",
               "execution",
               "expected",
               "format",
               "forward_list",
               "fstream",
               "functional",
               "future",
               "initializer_list",
               "iomanip",
               "ios",
               "iosfwd",
               "iostream",
               "istream",
               "iterator",
               "latch",
               "limits",
               "list",
               "locale",
               "map",
               "memory",
               "memory_resource",
               "mutex",
               "new",
               "numbers",
               "numeric",
               "optional",
               "ostream",
               "queue",
               "random",
               "ranges",
               "ratio",
               "regex",
               "scoped_allocator",
               "semaphore",
               "set",
               "shared_mutex",
               "source_location",
               "span",
               "sstream",
               "stack",
               "stdexcept",
               "stop_token",
               "streambuf",
               "string",
               "string_view",
               "syncstream",
               "system_error",
               "thread",
               "tuple",
               "type_traits",
               "typeindex",
               "typeinfo",
               "unordered_map",
               "unordered_set",
               "utility",
               "valarray",
               "variant",
               "vector",
               "version"});
  add_headers(rules, "C standard library",
              {"assert.h",   "complex.h", "ctype.h",   "errno.h",  "fenv.h",   "float.h",
               "inttypes.h", "limits.h",  "locale.h",  "math.h",   "setjmp.h", "signal.h",
               "stdalign.h", "stdarg.h",  "stdbool.h", "stddef.h", "stdint.h", "stdio.h",
               "stdlib.h",   "string.h",  "time.h",    "wchar.h",  "wctype.h"});
  add_headers(rules, "x86 intrinsics",
              {"immintrin.h", "x86intrin.h", "xmmintrin.h", "emmintrin.h", "pmmintrin.h",
               "tmmintrin.h", "smmintrin.h", "nmmintrin.h", "wmmintrin.h"});
  add_headers(rules, "OpenMP", {"omp.h"});
  // Refused like every header off the list; named because a kernel writer reaches for them.
  for (const char* name : {"filesystem", "unistd.h", "pthread.h", "sys/mman.h", "dlfcn.h"}) {
    rules.push_back({RuleKind::kHeader, name, false,
                     "not on the list: files, processes, threads and libraries are the operating "
                     "system's",
                     "refused", ""});
  }
  rules.push_back({RuleKind::kHeader, task::kKernelHeaderName, true, "", "the task's header",
                   std::string("\"") + task::kKernelHeaderName + "\""});

  // Looked for in string literals too, where inline assembly hides.
  add_forbidden_words(rules);
  add_refused_directives_and_pragmas(rules);
  for (const char* directive : {"incbin", "include", "macro", "irp", "irpc", "rept", "altmacro",
                                "purgem", "exitm", "endm", "endr"}) {
    rules.push_back({RuleKind::kAssembly, directive, false,
                     "reads a file or builds directives in the assembler", "", ""});
  }

  // What passes because nothing forbids it; source_check_test and compiler_test put each example
  // through the real checks.
  CpuPlatformOptions platform;
  std::string memory = fmt::format("{} GiB", platform.memory_bytes >> 30);
  for (auto [spelling, example, reason] :
       std::initializer_list<std::tuple<const char*, const char*, std::string>>{
           {"__builtin_prefetch", "__builtin_prefetch(x + i + 256, 0, 3);",
            "allowed, like every GCC builtin that does not call the operating system"},
           {"__attribute__((always_inline)), [[gnu::always_inline]], noinline, hot, flatten",
            "static inline __attribute__((always_inline)) float twice(float v) { return 2 * v; }",
            "allowed: every attribute except constructor and destructor, however spelled "
            "(__constructor__ too), and sections named init_array, fini_array, preinit_array, "
            "ctors or dtors"},
           {"#pragma GCC unroll N, #pragma GCC ivdep",
            "#pragma GCC unroll 4\nfor (int i = 0; i < 4; ++i) y[i] = x[i];",
            "allowed; pragmas are an allow-list, and only these pass: " + allowed_pragma_list() +
                " (any other is refused, whatever it does)"},
           {"#pragma omp simd", "#pragma omp simd\nfor (int i = 0; i < 8; ++i) y[i] = x[i];",
            "allowed (compiled with -fopenmp)"},
           {"__restrict__, __restrict", "float* __restrict__ out = y;", "allowed"},
           {"token pasting with a number (`a##0`), `#` in a macro's body",
            "#define LANE_NAME(base) base##0\nfloat LANE_NAME(lane) = 0;\n(void)lane0;",
            "allowed: not directives, so the `#<number>` rule (line markers) does not touch them"},
           {"alignas, __builtin_assume_aligned, std::assume_aligned",
            "alignas(64) float lanes[16] = {};", "allowed"},
           {"x86 intrinsics (_mm512_*, _mm256_*)", "__m256 v = _mm256_setzero_ps();",
            "allowed: every intrinsic this CPU supports (-march=native)"},
           {"inline asm (asm, __asm__)", "asm volatile(\"\" ::: \"memory\");",
            "allowed: its assembly goes through the same directive check as the compiler's, and "
            "any system call it makes is stopped by the sandbox"},
           {"static scratch arrays, std::vector, new",
            "static float scratch[1 << 20];  // 4 MiB, zero-initialized",
            "allowed, any size within the run-time memory limit (" + memory +
                " of address space beyond the task's tensors, for everything the kernel "
                "allocates); they must not carry answers from one call to the next"}}) {
    rules.push_back({RuleKind::kConstruct, spelling, true, reason, "", example});
  }

  CompilerOptions compiler;
  for (auto [what, limit] : std::initializer_list<std::pair<const char*, std::string>>{
           {"source", fmt::format("one file of at most {} KiB", kMaxSourceBytes / 1024)},
           {"compile", fmt::format("at most {} s of CPU time and {} GiB of memory",
                                   compiler.cpu_limit.count(), compiler.memory_bytes >> 30)},
           {"memory", memory +
                          " of address space beyond the task's tensors: static arrays, heap, "
                          "stacks and OpenMP's threads together; past it an allocation fails or "
                          "the library does not load"},
           {"threads",
            "at most the task's threads (ACCELOPT_THREADS); a one-thread task may not create "
            "threads at all; no thread may still run after the call returns"},
           {"system calls",
            "none beyond memory and threads: files, sockets, processes, signals, timers and "
            "anything else kill the kernel (seccomp)"},
           {"inputs",
            "read-only: mapped read-only, so a write into one faults and fails the kernel"},
           {"outputs",
            "hold NaN when the kernel is called; every element must be written; writes past a "
            "buffer's ends are caught by fences"},
           {"state",
            "the answer is recomputed on every call: calls inside timed turns get other inputs "
            "and are checked too"}}) {
    rules.push_back({RuleKind::kLimit, what, false, limit, "", ""});
  }
  return rules;
}

}  // namespace

bool allowed_pragma(const std::string& words) {
  std::vector<std::string> given = identifier_words(words);
  for (const char* pragma : kAllowedPragmas) {
    std::vector<std::string> spelled = identifier_words(pragma);
    if (given.size() >= spelled.size() &&
        std::equal(spelled.begin(), spelled.end(), given.begin())) {
      return true;
    }
  }
  return false;
}

const std::vector<SourceRule>& kernel_rules() {
  static const std::vector<SourceRule> rules = make_rules();
  return rules;
}

bool is_table_header(const std::string& name) {
  static const std::set<std::string> headers = [] {
    std::set<std::string> names;
    for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kHeader)) {
      if (rule->allowed && rule->example.empty()) names.insert(rule->spelling);
    }
    return names;
  }();
  return headers.count(name) > 0;
}

const SourceRule* forbidden_word(const std::string& word) {
  static const std::map<std::string, const SourceRule*> words = [] {
    std::map<std::string, const SourceRule*> found;
    for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kWord)) {
      if (!rule->allowed) found[rule->spelling] = rule;
    }
    return found;
  }();
  auto it = words.find(word);
  return it == words.end() ? nullptr : it->second;
}

const SourceRule* forbidden_directive(const std::string& name) {
  bool marker = !name.empty() && std::isdigit(static_cast<unsigned char>(name[0]));
  for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kDirective)) {
    if (!rule->allowed && rule->spelling == (marker ? "<number>" : name)) return rule;
  }
  return nullptr;
}

const SourceRule* forbidden_pragma(const std::string& words) {
  std::vector<std::string> given = identifier_words(words);
  for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kPragma)) {
    std::vector<std::string> spelled = identifier_words(rule->spelling);
    if (!rule->allowed && given.size() >= spelled.size() &&
        std::equal(spelled.begin(), spelled.end(), given.begin())) {
      return rule;
    }
  }
  return nullptr;
}

std::string assembly_alternatives() {
  std::string alternatives;
  for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kAssembly)) {
    alternatives += (alternatives.empty() ? "" : "|") + rule->spelling;
  }
  return alternatives;
}

}  // namespace accelopt::platform::cpu
