#include "platform/cuda/nvcc_checks.h"

#include <algorithm>
#include <regex>
#include <sstream>

#include "platform/cuda/source_rules.h"
#include "task/abi.h"

namespace accelopt::platform::cuda {
namespace {

const char* const kKernelFile = "kernel.cu";

std::string clip(const std::string& text, size_t length = 200) {
  return text.size() <= length ? text : text.substr(0, length) + "...";
}

bool is_own_file(std::string name) {
  if (name.starts_with("./")) name = name.substr(2);
  return name == kKernelFile || name == task::kKernelHeaderName;
}

bool under(const std::string& file, const std::vector<std::filesystem::path>& directories) {
  std::string path = std::filesystem::path(file).lexically_normal().string();
  if (path.find("/../") != std::string::npos) return false;
  return std::any_of(directories.begin(), directories.end(), [&](const auto& directory) {
    std::string prefix = directory.lexically_normal().string();
    if (!prefix.ends_with("/")) prefix += "/";
    return path.starts_with(prefix);
  });
}

// A diagnostic located in another file: where and what kind, never its text, which may quote it
// (an assembler's "no such instruction" quotes the line it read).
std::string about_another_file(const std::string& line) {
  for (const char* kind : {"error", "Error", "warning", "Warning", "note"}) {
    size_t at = line.find(kind);
    if (at != std::string::npos) {
      return clip(line.substr(0, at + std::string(kind).size()), 200) +
             ": (not shown: the message is about another file than the kernel)";
    }
  }
  return clip(line.substr(0, line.find(' ')), 200) +
         " (not shown: the message is about another file than the kernel)";
}

}  // namespace

std::optional<std::string> check_nvcc_preprocessed(
    const std::string& preprocessed, const std::vector<std::filesystem::path>& system_directories) {
  static const std::regex marker(R"re(^#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)".*$)re");
  std::string current = kKernelFile, own_code;
  std::istringstream lines(preprocessed);
  std::string line;
  while (std::getline(lines, line)) {
    size_t first = line.find_first_not_of(" \t\f\v\r");
    if (first == std::string::npos) continue;
    std::string text = line.substr(first);
    bool own = is_own_file(current);
    if (!text.starts_with("#")) {
      if (current == kKernelFile) own_code += text + "\n";
      continue;
    }
    std::smatch match;
    if (std::regex_match(text, match, marker)) {
      std::string file = match[2].str();
      bool special = file.starts_with("<") && file.ends_with(">");
      if (!special && !is_own_file(file) && !under(file, system_directories)) {
        return "the kernel reads '" + clip(file) +
               "', which is not a system or CUDA header (by #include, #line or a line marker)";
      }
      current = file.starts_with("./") ? file.substr(2) : file;
      continue;
    }
    if (!own) continue;  // the headers' own pragmas are theirs
    std::string words = text.substr(1);
    words = words.substr(std::min(words.size(), words.find_first_not_of(" \t")));
    if (words.starts_with("pragma")) {
      std::string pragma = words.substr(6);
      if (!allowed_pragma(pragma)) {
        return "#pragma" + clip(pragma, 80) +
               " is not allowed in a kernel: only the pragmas the rules list as allowed pass";
      }
      continue;
    }
    return "the preprocessed kernel still holds a directive ('" + clip(text, 80) +
           "'): a kernel may not build directives from macros";
  }
  if (auto why = forbidden_word_in(own_code)) return "after preprocessing: " + *why;
  return std::nullopt;
}

std::optional<std::string> check_nvcc_assembly(const std::string& assembly) {
  static const std::regex builders(
      R"(\.\s*(incbin|include|macro|irpc|irp|rept|altmacro|purgem|exitm|endm)\b)",
      std::regex::icase);
  std::smatch match;
  if (!std::regex_search(assembly, match, builders)) return std::nullopt;
  std::string name = match[1].str();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return "the assembly holds the directive ." + name +
         ", which is not allowed in a kernel (it reads files or builds directives)";
}

std::string trim_nvcc_diagnostics(const std::string& log, size_t max_bytes) {
  // "file(12): error: ...", "file:12:3: error: ...", "ptxas file, line 5; error : ..."
  static const std::regex located(R"(^([^\s:(,]+)(?:\((\d+)\)|:(\d+)|, line \d+))");
  std::istringstream lines(log);
  std::string line, trimmed;
  bool quoting_ok = true;
  while (std::getline(lines, line)) {
    std::smatch match;
    std::string text = line;
    if (text.starts_with("ptxas ")) text = text.substr(6);
    if (std::regex_search(text, match, located)) {
      quoting_ok = is_own_file(match[1].str());
      trimmed += (quoting_ok ? line : about_another_file(line)) + "\n";
    } else if (quoting_ok) {
      trimmed += line + "\n";
    }
    if (trimmed.size() > max_bytes) {
      trimmed.resize(max_bytes);
      return trimmed + "\n[diagnostics truncated]\n";
    }
  }
  return trimmed;
}

}  // namespace accelopt::platform::cuda
