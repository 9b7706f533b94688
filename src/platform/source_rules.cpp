#include "platform/source_rules.h"

#include <cctype>
#include <cstring>
#include <optional>
#include <utility>

#include "task/abi.h"

namespace accelopt::platform {

std::vector<const SourceRule*> rules_of(const std::vector<SourceRule>& rules, RuleKind kind) {
  std::vector<const SourceRule*> found;
  for (const SourceRule& rule : rules) {
    if (rule.kind == kind) found.push_back(&rule);
  }
  return found;
}

namespace {

std::string as_written(const SourceRule& rule) {
  switch (rule.kind) {
    case RuleKind::kDirective:
      return "#" + rule.spelling;
    case RuleKind::kPragma:
      return "#pragma " + rule.spelling;
    case RuleKind::kAssembly:
      return "." + rule.spelling;
    default:
      return rule.spelling;
  }
}

bool starts_word(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool in_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// `text`'s identifiers, each also without the `__` wrapping GCC accepts (checked_words).
void add_words(const std::string& text, std::vector<std::string>& words) {
  for (const std::string& word : identifier_words(text)) {
    words.push_back(word);
    std::string bare = word;
    while (bare.size() > 4 && bare.starts_with("__") && bare.ends_with("__")) {
      bare = bare.substr(2, bare.size() - 4);
    }
    if (bare != word) {
      words.push_back(bare);
      words.push_back("__" + bare);  // __has_include__ is GCC's old __has_include
    }
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes the escape starting at text[at] (a backslash) into `out`; returns the index after it.
// A code point beyond ASCII becomes '?', which no word holds.
size_t decode_escape(const std::string& text, size_t at, std::string& out) {
  size_t i = at + 1;
  if (i >= text.size()) return i;
  char c = text[i];
  auto put = [&](unsigned long value) { out += value < 128 ? static_cast<char>(value) : '?'; };
  if (c == 'x' || c == 'u' || c == 'U') {
    size_t most = c == 'x' ? std::string::npos : (c == 'u' ? 4 : 8);
    unsigned long value = 0;
    size_t digits = 0;
    for (++i; i < text.size() && hex_value(text[i]) >= 0 && digits < most; ++i, ++digits) {
      value = value * 16 + static_cast<unsigned long>(hex_value(text[i]));
      if (value > 0x10FFFF) value = 0x10FFFF;
    }
    put(value);
    return i;
  }
  if (c >= '0' && c <= '7') {
    unsigned long value = 0;
    for (size_t digits = 0; i < text.size() && digits < 3 && text[i] >= '0' && text[i] <= '7';
         ++i, ++digits) {
      value = value * 8 + static_cast<unsigned long>(text[i] - '0');
    }
    put(value);
    return i;
  }
  static const std::string simple = "abfnrtv";
  static const std::string meaning = "\a\b\f\n\r\t\v";
  size_t found = simple.find(c);
  out += found == std::string::npos ? c : meaning[found];
  return i + 1;
}

// The string literal whose opening quote is text[quote] (a raw one when `raw`), decoded, appended
// to `out`; returns the index after its closing quote.
size_t read_literal(const std::string& text, size_t quote, bool raw, std::string& out) {
  if (raw) {
    size_t open = text.find('(', quote);
    if (open == std::string::npos) return text.size();
    std::string close = ")" + text.substr(quote + 1, open - quote - 1) + "\"";
    size_t end = text.find(close, open + 1);
    if (end == std::string::npos) end = text.size();
    out += text.substr(open + 1, end - open - 1);
    return std::min(text.size(), end + close.size());
  }
  size_t i = quote + 1;
  while (i < text.size() && text[i] != '"' && text[i] != '\n') {
    if (text[i] == '\\') {
      i = decode_escape(text, i, out);
    } else {
      out += text[i++];
    }
  }
  return i + 1;
}

// Where a string literal starts at text[i] (its prefix: u8, u, U, L, R and their mixes), the index
// of its opening quote and whether it is raw; nullopt when none does.
std::optional<std::pair<size_t, bool>> literal_at(const std::string& text, size_t i) {
  if (i > 0 && in_word(text[i - 1])) return std::nullopt;
  size_t j = i;
  for (const char* prefix : {"u8", "u", "U", "L"}) {
    if (text.compare(j, std::strlen(prefix), prefix) == 0) {
      j += std::strlen(prefix);
      break;
    }
  }
  bool raw = j < text.size() && text[j] == 'R';
  if (raw) ++j;
  if (j < text.size() && text[j] == '"') return std::pair{j, raw};
  return std::nullopt;
}

// The string literals of `code`, each run of adjacent ones joined into one (translation phase 6).
std::vector<std::string> joined_literals(const std::string& code) {
  std::vector<std::string> joined;
  std::optional<std::string> current;
  for (size_t i = 0; i < code.size();) {
    if (auto literal = literal_at(code, i)) {
      if (!current) current.emplace();
      i = read_literal(code, literal->first, literal->second, *current);
      continue;
    }
    char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (current) joined.push_back(std::move(*current));
    current.reset();
    if (c == '\'' && (i == 0 || !in_word(code[i - 1]))) {  // a character literal, not 1'000
      std::string ignored;
      for (++i; i < code.size() && code[i] != '\'' && code[i] != '\n';) {
        i = code[i] == '\\' ? decode_escape(code, i, ignored) : i + 1;
      }
    }
    ++i;
  }
  if (current) joined.push_back(std::move(*current));
  return joined;
}

}  // namespace

void add_refused_directives_and_pragmas(std::vector<SourceRule>& rules) {
  for (auto [name, reason] : std::initializer_list<std::pair<const char*, const char*>>{
           {"include_next", "reaches headers outside the allowed list"},
           {"embed", "reads a file at compile time"},
           {"line", "renames the file the compiler reads"},
           {"<number>",
            "renames the file the compiler reads: a line that begins with `#` and a number, a "
            "line marker such as `# 12 \"file.h\"`; token pasting (`a##0`) and `#` inside a "
            "macro's body are not directives and pass"}}) {
    rules.push_back({RuleKind::kDirective, name, false, reason, "", ""});
  }
  rules.push_back({RuleKind::kDirective, "include MACRO", false,
                   "an #include must name its header directly, <name> or \"" +
                       std::string(task::kKernelHeaderName) + "\"",
                   "", ""});
  const std::string hides = "hides the compiler's diagnostics about a file";
  const std::string depends = "makes the compiler look at another file";
  for (auto [words, reason] : std::initializer_list<std::pair<const char*, std::string>>{
           {"GCC system_header", hides},
           {"clang system_header", hides},
           {"GCC dependency", depends},
           {"clang dependency", depends},
           {"GCC __debug", "dumps compiler internals"},
           {"clang __debug", "dumps compiler internals"},
           {"comment", "embeds text or a library request in the object"},
           {"include_alias", "maps a header name to another file"},
           {"embed", "reads a file at compile time"}}) {
    rules.push_back({RuleKind::kPragma, words, false, reason, "", ""});
  }
}

std::vector<std::string> identifier_words(const std::string& text) {
  std::vector<std::string> words;
  for (size_t i = 0; i < text.size();) {
    if (!starts_word(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && in_word(text[end])) ++end;
    words.push_back(text.substr(i, end - i));
    i = end;
  }
  return words;
}

std::vector<std::string> checked_words(const std::string& code) {
  std::vector<std::string> words;
  add_words(code, words);
  for (const std::string& literal : joined_literals(code)) add_words(literal, words);
  return words;
}

void add_headers(std::vector<SourceRule>& rules, const std::string& group,
                 std::initializer_list<const char*> names) {
  for (const char* name : names) rules.push_back({RuleKind::kHeader, name, true, "", group, ""});
}

void add_forbidden_words(std::vector<SourceRule>& rules) {
  const std::string load_time =
      "runs code when the library loads or unloads, outside any timed call";
  for (auto [word, reason] : std::initializer_list<std::pair<const char*, std::string>>{
           {"incbin", "reads a file into the object at compile time"},
           {"constructor", load_time},
           {"destructor", load_time},
           {"init_array", load_time},
           {"fini_array", load_time},
           {"preinit_array", load_time},
           {"ctors", load_time},
           {"dtors", load_time},
           {"__has_include", "probes the file system at compile time"},
           {"include_next", "reaches headers outside the allowed list"},
           {"syscall", "calls the operating system directly"}}) {
    rules.push_back({RuleKind::kWord, word, false, reason, "", ""});
  }
}

Json rules_variables(const std::vector<SourceRule>& rules) {
  Json groups = Json::array();
  std::string refused;
  for (const SourceRule* rule : rules_of(rules, RuleKind::kHeader)) {
    std::string name = rule->example.empty() ? "<" + rule->spelling + ">" : rule->example;
    if (!rule->allowed) {
      refused += (refused.empty() ? "`" : ", `") + name + "`";
      continue;
    }
    if (groups.empty() || groups.back()["group"] != rule->group) {
      groups.push_back({{"group", rule->group}, {"headers", "`" + name + "`"}, {"count", 0}});
    } else {
      groups.back()["headers"] = groups.back()["headers"].get<std::string>() + ", `" + name + "`";
    }
    groups.back()["count"] = groups.back()["count"].get<int>() + 1;
  }
  // A short group is named whole where the list is summarized (the executor's prompt).
  for (Json& group : groups) group["short"] = group["count"].get<int>() <= kShortHeaderGroup;
  for (size_t i = 0; i < groups.size(); ++i) groups[i]["last"] = i + 1 == groups.size();
  Json allowed = Json::array(), forbidden = Json::array(), assembly = Json::array(),
       limits = Json::array();
  for (const SourceRule& rule : rules) {
    Json row = {{"spelling", as_written(rule)}, {"reason", rule.reason}};
    switch (rule.kind) {
      case RuleKind::kHeader:
        break;
      case RuleKind::kConstruct:
        row["example"] = rule.example;
        (rule.allowed ? allowed : forbidden).push_back(row);
        break;
      case RuleKind::kWord:
      case RuleKind::kDirective:
      case RuleKind::kPragma:
        (rule.allowed ? allowed : forbidden).push_back(row);
        break;
      case RuleKind::kAssembly:
        assembly.push_back(row);
        break;
      case RuleKind::kLimit:
        limits.push_back(row);
        break;
    }
  }
  return {{"header_groups", groups}, {"refused_headers", refused}, {"allowed", allowed},
          {"forbidden", forbidden},  {"assembly", assembly},       {"limits", limits}};
}

}  // namespace accelopt::platform
