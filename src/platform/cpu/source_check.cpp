#include "platform/cpu/source_check.h"

#include <cctype>
#include <regex>

#include "platform/cpu/rule_table.h"
#include "task/abi.h"

namespace accelopt::platform::cpu {

std::optional<std::string> forbidden_word_in(const std::string& code) {
  for (const std::string& word : checked_words(code)) {
    if (const SourceRule* rule = forbidden_word(word)) {
      return "'" + word + "' is not allowed in a kernel (it " + rule->reason + ")";
    }
  }
  return std::nullopt;
}

bool is_allowed_header(const std::string& name) {
  return is_table_header(name) || name == task::kKernelHeaderName;
}

std::optional<std::string> check_kernel_source(const std::string& source,
                                               const std::string& entry_point) {
  if (source.size() > kMaxSourceBytes) {
    return "the source is larger than " + std::to_string(kMaxSourceBytes / 1024) + " KiB";
  }
  static const std::regex angle_pattern(R"(^<([^<>]+)>$)");
  static const std::regex quote_pattern(R"re(^"([^"]+)"$)re");
  for (const kernel::Directive& directive : kernel::find_directives(source)) {
    std::string where = "line " + std::to_string(directive.line) + ": ";
    const std::string& name = directive.name;
    if (const SourceRule* rule = forbidden_directive(name)) {
      return where + "#" + name + " is not allowed in a kernel (it " + rule->reason + ")";
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
    if (name != "include" && name != "import") continue;
    std::smatch header;
    if (std::regex_match(directive.rest, header, angle_pattern)) {
      if (!is_table_header(header[1].str())) {
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
  // Words are looked for in string literals too: inline assembly and section names hide in them.
  if (auto why = forbidden_word_in(strip_comments_and_literals(source, /*keep_literals=*/true))) {
    return why;
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
