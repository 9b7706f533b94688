#include "platform/cuda/source_rules.h"

#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <tuple>
#include <vector>

#include "kernel/source_text.h"
#include "task/abi.h"

namespace accelopt::platform::cuda {
namespace {

constexpr size_t kMaxSourceBytes = 512 * 1024;

std::vector<SourceRule> make_rules() {
  std::vector<SourceRule> rules;
  add_headers(
      rules, "CUDA (no linking needed)",
      {"cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_pipeline.h", "mma.h", "vector_types.h",
       "device_launch_parameters.h", "crt/math_functions.h", "cooperative_groups.h",
       "cooperative_groups/reduce.h", "cooperative_groups/memcpy_async.h", "cub/cub.cuh",
       "cuda/pipeline", "cuda/barrier", "cuda/atomic", "cuda/std/atomic", "cuda/std/cstdint",
       "cuda/std/limits", "cuda/std/type_traits"});
  add_headers(rules, "C++ standard library",
              {"algorithm", "array",       "atomic",  "bit",        "cassert",
               "cfloat",    "climits",     "cmath",   "cstddef",    "cstdint",
               "cstdio",    "cstdlib",     "cstring", "functional", "initializer_list",
               "iterator",  "limits",      "memory",  "numeric",    "span",
               "tuple",     "type_traits", "utility", "vector"});
  add_headers(rules, "C standard library", {"float.h", "math.h", "stddef.h", "stdint.h"});
  rules.push_back({RuleKind::kHeader, task::kKernelHeaderName, true, "", "the task's header",
                   std::string("\"") + task::kKernelHeaderName + "\""});

  // nvcc's host compiler would honour them as g++ does.
  add_forbidden_words(rules);
  add_refused_directives_and_pragmas(rules);
  rules.push_back({RuleKind::kDirective, "import", false, "is not plain #include", "", ""});
  // Pragmas by allow-list (issue 44): what unrolls loops and what quiets a diagnostic, nothing
  // that could make a compiler look at a file.
  for (const char* words :
       {"unroll", "nounroll", "GCC unroll", "GCC ivdep", "GCC diagnostic", "nv_diagnostic",
        "nv_diag_suppress", "nv_diag_warning", "nv_diag_default", "once"}) {
    rules.push_back({RuleKind::kPragma, words, true, "allowed", "", ""});
  }
  for (auto [spelling, example, reason] :
       std::initializer_list<std::tuple<const char*, const char*, const char*>>{
           {"__restrict__, __ldg, float4 loads",
            "float4 v = __ldg(reinterpret_cast<const float4*>(x) + i);", "allowed"},
           {"#pragma unroll", "#pragma unroll\nfor (int k = 0; k < 4; ++k) acc += k;", "allowed"},
           {"__launch_bounds__", "__global__ void __launch_bounds__(256) step(float* y) {}",
            "allowed"},
           {"__shared__ tiles, warp shuffles, cooperative groups", "__shared__ float tile[32][33];",
            "allowed"},
           {"inline PTX (asm volatile)", "asm volatile(\"\" ::: \"memory\");",
            "allowed; the sandbox stops what the host side may not do"},
           {"__device__ scratch arrays", "__device__ float scratch[1 << 20];",
            "allowed, sized from the header's constants or allocated once; they must not carry "
            "answers from one call to the next"}}) {
    rules.push_back({RuleKind::kConstruct, spelling, true, reason, "", example});
  }
  for (auto [what, limit] : std::initializer_list<std::pair<const char*, std::string>>{
           {"source", "one file of at most " + std::to_string(kMaxSourceBytes / 1024) + " KiB"},
           {"libraries", "none to link: no cuBLAS, no cuDNN"},
           {"host code",
            "no files, sockets, processes, extra streams or threads: the host side runs in a "
            "sandbox that kills it for trying"},
           {"inputs", "read-only: checked after every checked call"},
           {"outputs",
            "hold NaN when the kernel is called; every element must be written; writes outside "
            "the buffers are caught"},
           {"state", "the answer is recomputed on every call"}}) {
    rules.push_back({RuleKind::kLimit, what, false, limit, "", ""});
  }
  return rules;
}

const SourceRule* find_rule(RuleKind kind, const std::string& spelling) {
  for (const SourceRule* rule : rules_of(kernel_rules(), kind)) {
    if (rule->spelling == spelling) return rule;
  }
  return nullptr;
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

// Attributes that may stand between `extern "C"` and `void` in the entry point's definition.
const std::set<std::string>& entry_point_attributes() {
  static const std::set<std::string> attributes = {"__host__"};
  return attributes;
}

std::optional<std::string> check_directive(const kernel::Directive& directive) {
  std::string where = "line " + std::to_string(directive.line) + ": ";
  const std::string& name = directive.name;
  bool marker = !name.empty() && std::isdigit(static_cast<unsigned char>(name[0]));
  if (const SourceRule* rule = find_rule(RuleKind::kDirective, marker ? "<number>" : name)) {
    return where + "#" + name + " is not allowed in a kernel (it " + rule->reason +
           "); only plain #include is";
  }
  if (name == "pragma") {
    if (const SourceRule* rule = forbidden_pragma(directive.rest)) {
      return where + "#pragma " + rule->spelling + " is not allowed in a kernel (it " +
             rule->reason + ")";
    }
    if (!allowed_pragma(directive.rest)) {
      return where + "#pragma " + directive.rest.substr(0, 60) +
             " is not allowed in a kernel: only the pragmas the rules list as allowed pass";
    }
  }
  if (name != "include") return std::nullopt;
  static const std::regex header_pattern(R"re(^(<([^<>]+)>|"([^"]+)")$)re");
  std::smatch header;
  if (!std::regex_match(directive.rest, header, header_pattern)) {
    return where + "#include must name a header directly (<name> or \"" +
           std::string(task::kKernelHeaderName) + "\"), not through a macro";
  }
  // The task header lies beside the kernel: only the quoted form names it.
  bool allowed =
      header[2].matched ? is_table_header(header[2].str()) : is_allowed_header(header[3].str());
  if (allowed) return std::nullopt;
  return where + "#include " + directive.rest +
         " is not allowed (the C++ standard library, the CUDA kernel headers and \"" +
         task::kKernelHeaderName + "\" are)";
}

// extern "C" [__host__] void <entry_point> (
bool defines_entry_point(const std::vector<std::string>& tokens, const std::string& entry_point) {
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i] != "extern" || tokens[i + 1] != "\"C\"") continue;
    size_t next = i + 2;
    while (next < tokens.size() && entry_point_attributes().count(tokens[next])) ++next;
    if (next + 2 < tokens.size() && tokens[next] == "void" && tokens[next + 1] == entry_point &&
        tokens[next + 2] == "(") {
      return true;
    }
  }
  return false;
}

// The first kPragma row whose words `pragma` starts with, among the allowed or the forbidden ones.
const SourceRule* pragma_row(const std::string& pragma, bool allowed) {
  std::vector<std::string> given = identifier_words(pragma);
  for (const SourceRule* rule : rules_of(kernel_rules(), RuleKind::kPragma)) {
    std::vector<std::string> spelled = identifier_words(rule->spelling);
    if (rule->allowed == allowed && given.size() >= spelled.size() &&
        std::equal(spelled.begin(), spelled.end(), given.begin())) {
      return rule;
    }
  }
  return nullptr;
}

}  // namespace

const std::vector<SourceRule>& kernel_rules() {
  static const std::vector<SourceRule> rules = make_rules();
  return rules;
}

bool is_allowed_header(const std::string& name) {
  return is_table_header(name) || name == task::kKernelHeaderName;
}

const SourceRule* forbidden_pragma(const std::string& pragma) {
  return pragma_row(pragma, false);
}

bool allowed_pragma(const std::string& pragma) {
  return pragma_row(pragma, true) != nullptr;
}

std::optional<std::string> forbidden_word_in(const std::string& code) {
  for (const std::string& word : checked_words(code)) {
    if (const SourceRule* rule = find_rule(RuleKind::kWord, word)) {
      return "'" + word + "' is not allowed in a kernel (it " + rule->reason + ")";
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_cuda_source(const std::string& source,
                                             const std::string& entry_point) {
  if (source.size() > kMaxSourceBytes) {
    return "the source is larger than " + std::to_string(kMaxSourceBytes / 1024) + " KiB";
  }
  for (const kernel::Directive& directive : kernel::find_directives(source)) {
    if (auto rejection = check_directive(directive)) return rejection;
  }
  // Words are looked for in string literals too, as the compiler reads them: inline assembly and
  // section names hide in them.
  if (auto why =
          forbidden_word_in(kernel::strip_comments_and_literals(source, /*keep_literals=*/true))) {
    return why;
  }
  if (!defines_entry_point(kernel::code_tokens(source), entry_point)) {
    return "the source does not define extern \"C\" void " + entry_point +
           "(...) with the prototype " + task::kKernelHeaderName + " declares";
  }
  return std::nullopt;
}

}  // namespace accelopt::platform::cuda
