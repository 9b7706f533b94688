#include "platform/cpu/compiler_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include "platform/cpu/rule_table.h"
#include "platform/cpu/source_check.h"
#include "task/abi.h"

namespace accelopt::platform::cpu {
namespace {

const char* const kKernelFile = "kernel.cpp";

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string clip(const std::string& text, size_t length = 200) {
  return text.size() <= length ? text : text.substr(0, length) + "...";
}

bool is_own_file(std::string name) {
  if (name.starts_with("./")) name = name.substr(2);
  return name == kKernelFile || name == task::kKernelHeaderName;
}

// The header name a path was included as (<vector>, <sys/socket.h>), if it lies in a search
// directory; the longest match wins, as the deepest directory is the one that names it.
std::optional<std::string> header_name(const std::filesystem::path& file,
                                       const std::vector<std::filesystem::path>& directories) {
  std::string path = file.lexically_normal().string();
  std::optional<std::string> best;
  size_t best_length = 0;
  for (const std::filesystem::path& directory : directories) {
    std::string prefix = directory.lexically_normal().string();
    if (!prefix.ends_with("/")) prefix += "/";
    if (path.starts_with(prefix) && prefix.size() > best_length &&
        path.find("/../") == std::string::npos) {
      best = path.substr(prefix.size());
      best_length = prefix.size();
    }
  }
  return best;
}

}  // namespace

std::optional<std::string> check_preprocessed(
    const std::string& preprocessed,
    const std::vector<std::filesystem::path>& include_directories) {
  static const std::regex marker(R"re(^#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"((?:\s+\d)*)\s*$)re");
  std::vector<std::string> stack;  // the includers of `current`
  std::string current = kKernelFile;
  std::string own_code;  // kernel.cpp's lines, macros expanded: its words are checked at the end
  std::istringstream lines(preprocessed);
  std::string line;
  while (std::getline(lines, line)) {
    size_t first = line.find_first_not_of(" \t\f\v\r");
    if (first == std::string::npos) continue;
    std::string text = line.substr(first);
    if (!text.starts_with("#") && !text.starts_with("%:") && !text.starts_with("?\?=")) {
      if (current == kKernelFile) own_code += text + "\n";
      continue;
    }
    std::smatch match;
    if (std::regex_match(text, match, marker)) {
      std::string file = match[2].str();
      std::string flags = match[3].str();
      bool entering = flags.find('1') != std::string::npos;
      bool leaving = flags.find('2') != std::string::npos;
      bool special = file == "<built-in>" || file == "<command-line>" || file == "<stdin>";
      if (!special && !is_own_file(file) && !header_name(file, include_directories)) {
        return "the kernel reads '" + clip(file) +
               "', which is not a system header (by #include, #line or a line marker)";
      }
      if (entering) {
        if (current == kKernelFile && file.ends_with(kKernelFile)) {
          return "the kernel includes itself";
        }
        if (current == kKernelFile && !special && !is_own_file(file)) {
          std::optional<std::string> name = header_name(file, include_directories);
          if (!name || !is_allowed_header(*name)) {
            return "#include <" + clip(name.value_or(file)) +
                   "> is not allowed; a kernel may include only the C/C++ standard library, "
                   "<immintrin.h> (and the other x86 intrinsic headers), <omp.h> and \"" +
                   task::kKernelHeaderName + "\"";
          }
        }
        stack.push_back(current);
      } else if (leaving && !stack.empty()) {
        stack.pop_back();
      }
      current = file.starts_with("./") ? file.substr(2) : file;
      continue;
    }
    if (text.starts_with("#pragma") || text.starts_with("# pragma")) {
      std::string words = text.substr(text.find("pragma") + 6);
      if (const SourceRule* rule = forbidden_pragma(words)) {
        return "#pragma" + clip(words, 80) + " is not allowed in a kernel (it " + rule->reason +
               ")";
      }
      // The kernel's own lines (a _Pragma or a macro expands where it is used) are held to the
      // allow-list; system headers' pragmas (visibility, system_header, ...) are theirs.
      if (is_own_file(current) && !allowed_pragma(words)) {
        return "#pragma" + clip(words, 80) +
               " is not allowed in a kernel: only the pragmas the rules list as allowed pass";
      }
      continue;
    }
    if (text.starts_with("#ident")) continue;  // a string for the object's comment section
    return "the preprocessed kernel still holds a directive ('" + clip(text, 80) +
           "'): a kernel may not build directives from macros";
  }
  // Macros can build a word the source never spells (`P(constr, uctor)`, a section name pasted
  // from pieces): the kernel's own lines are checked again as the compiler reads them.
  if (auto why = forbidden_word_in(own_code)) return "after preprocessing: " + *why;
  return std::nullopt;
}

std::optional<std::string> check_assembly(const std::string& assembly) {
  // Looked for everywhere, comments and strings included: without macros there is no way to build
  // a directive's name, so refusing the literal names closes the door whatever surrounds them.
  static const std::regex file_readers(R"(\.\s*()" + assembly_alternatives() + R"()\b)",
                                       std::regex::icase);
  std::smatch match;
  if (std::regex_search(assembly, match, file_readers)) {
    return "the assembly holds the directive ." + lower(match[1].str()) +
           ", which is not allowed in a kernel (it reads files or builds directives)";
  }
  static const std::set<std::string> allowed = {"file",         "text",
                                                "data",         "bss",
                                                "section",      "previous",
                                                "pushsection",  "popsection",
                                                "globl",        "global",
                                                "local",        "weak",
                                                "weakref",      "hidden",
                                                "protected",    "internal",
                                                "type",         "size",
                                                "p2align",      "balign",
                                                "align",        "byte",
                                                "short",        "value",
                                                "word",         "hword",
                                                "long",         "int",
                                                "quad",         "octa",
                                                "float",        "single",
                                                "double",       "ascii",
                                                "asciz",        "string",
                                                "zero",         "skip",
                                                "space",        "comm",
                                                "lcomm",        "set",
                                                "equ",          "equiv",
                                                "ident",        "loc",
                                                "uleb128",      "sleb128",
                                                "addrsig",      "addrsig_sym",
                                                "intel_syntax", "att_syntax",
                                                "noprefix",     "prefix",
                                                "code64",       "nops",
                                                "symver",       "loc_mark_labels",
                                                "reloc",        "dc",
                                                "if",           "else",
                                                "endif"};
  std::istringstream lines(assembly);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    // Statements end at newlines and semicolons; '#' starts a comment. Quotes guard both.
    std::string statement;
    bool quoted = false;
    auto check_statement = [&]() -> std::optional<std::string> {
      size_t at = statement.find_first_not_of(" \t");
      while (at != std::string::npos) {  // skip labels ("name:")
        size_t end = at;
        while (end < statement.size() &&
               !std::isspace(static_cast<unsigned char>(statement[end])) && statement[end] != ':') {
          ++end;
        }
        if (end < statement.size() && statement[end] == ':') {
          at = statement.find_first_not_of(" \t", end + 1);
          continue;
        }
        std::string word = lower(statement.substr(at, end - at));
        if (word.starts_with(".") && word.size() > 1) {
          std::string name = word.substr(1);
          if (!allowed.count(name) && !name.starts_with("cfi_")) {
            return fmt::format(
                "the assembly holds the directive {} (line {}), which is not one "
                "that compilers emit; kernels may not use it",
                clip(word, 40), number);
          }
        }
        break;
      }
      statement.clear();
      return std::nullopt;
    };
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (quoted) {
        statement += c;
        if (c == '\\' && i + 1 < line.size()) statement += line[++i];
        if (c == '"') quoted = false;
      } else if (c == '"') {
        quoted = true;
        statement += c;
      } else if (c == '\'' && i + 1 < line.size()) {
        statement += c;
        statement += line[++i];  // a character constant: 'c
      } else if (c == ';') {
        if (auto why = check_statement()) return why;
      } else if (c == '#') {
        break;
      } else {
        statement += c;
      }
    }
    if (auto why = check_statement()) return why;
  }
  return std::nullopt;
}

std::string trim_diagnostics(const std::string& log, int max_errors, size_t max_bytes) {
  static const std::regex located(
      R"(^(.+?):(\d+)(:\d+)?:\s*(fatal error|error|warning|note|Error|Warning|Assembler messages)?)");
  std::istringstream lines(log);
  std::string line, trimmed;
  int errors = 0;
  bool keeping = false;    // inside a diagnostic we show
  bool quoting_ok = true;  // that diagnostic is located in the kernel's own file
  while (std::getline(lines, line)) {
    bool is_error =
        line.find("error:") != std::string::npos || line.find("Error:") != std::string::npos;
    std::smatch match;
    bool starts_diagnostic = std::regex_search(line, match, located) && match[4].matched;
    if (starts_diagnostic) quoting_ok = is_own_file(match[1].str());
    if (is_error) {
      if (++errors > max_errors) break;
      keeping = true;
    } else if (line.find("warning:") != std::string::npos ||
               line.find("note:") != std::string::npos) {
      keeping = line.find("note:") != std::string::npos && keeping;
      if (!keeping) continue;
    } else if (line.find("In function") != std::string::npos ||
               line.find("In instantiation") != std::string::npos ||
               line.starts_with("In file included from") ||
               line.starts_with("                 from")) {
      continue;
    }
    if (!keeping) continue;
    if (starts_diagnostic || is_error) {
      trimmed += (quoting_ok ? line : clip(line)) + "\n";
    } else if (quoting_ok) {
      trimmed += line + "\n";  // the caret and the kernel's own line
    }
    if (trimmed.size() > max_bytes) {
      trimmed.resize(max_bytes);
      trimmed += "\n[diagnostics truncated]\n";
      return trimmed;
    }
  }
  if (errors > max_errors)
    trimmed += fmt::format("[{} more errors not shown]\n", errors - max_errors);
  if (trimmed.empty()) {
    // No error line to anchor on: show the first lines that quote no other file.
    std::istringstream again(log);
    int shown = 0;
    while (std::getline(again, line) && shown < 5) {
      std::smatch match;
      if (std::regex_search(line, match, located) && !is_own_file(match[1].str())) {
        trimmed += clip(line) + "\n";
      } else if (!std::regex_search(line, match, located)) {
        continue;
      } else {
        trimmed += line + "\n";
      }
      ++shown;
    }
    if (trimmed.empty()) trimmed = clip(log, 400);
  }
  return trimmed;
}

}  // namespace accelopt::platform::cpu
