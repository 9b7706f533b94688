#include "agents/answer_parsing.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include "kernel/source_text.h"

namespace accelopt::agents {
namespace {

struct CodeBlock {
  std::string language;
  std::string code;
};

std::string trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end && i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

bool is_fence(const std::string& line, std::string* language) {
  std::string text = trim(line);
  if (!text.starts_with("```") && !text.starts_with("~~~")) return false;
  if (language != nullptr) *language = lower(trim(text.substr(3)));
  return true;
}

// Fenced blocks in order; an unclosed last block (an answer cut at the token limit) runs to the
// end.
std::vector<CodeBlock> fenced_blocks(const std::string& text) {
  std::vector<CodeBlock> blocks;
  std::vector<std::string> lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string language;
    if (!is_fence(lines[i], &language)) continue;
    size_t end = i + 1;
    while (end < lines.size() && !(is_fence(lines[end], nullptr) && trim(lines[end]).size() == 3)) {
      ++end;
    }
    blocks.push_back({language, join_lines(lines, i + 1, end)});
    i = end;
  }
  return blocks;
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool looks_like_code_line(const std::string& line) {
  static const std::regex code_start(
      R"(^\s*(#\s*(include|pragma|define|if|ifdef|ifndef|endif|else)|//|/\*|extern\b|constexpr\b|static\b|inline\b|namespace\b|template\b|typedef\b|using\b|struct\b|union\b|enum\b|void\b|float\b|double\b|int\b|unsigned\b|const\b|alignas\b|std::|[A-Za-z_][A-Za-z0-9_:<>]*\s+\**[A-Za-z_][A-Za-z0-9_]*\s*[\(=;\[]))");
  return std::regex_search(line, code_start);
}

bool looks_like_code_end(const std::string& line) {
  std::string text = trim(line);
  return !text.empty() && (text.back() == '}' || text.back() == ';' || text.front() == '#');
}

// The code of an answer without fences: from its first code-like line to its last line that ends a
// statement or a block; prose before and after is dropped.
std::string bare_code(const std::string& text) {
  std::vector<std::string> lines = split_lines(text);
  size_t begin = 0;
  while (begin < lines.size() && !looks_like_code_line(lines[begin])) ++begin;
  size_t end = lines.size();
  while (end > begin && !looks_like_code_end(lines[end - 1])) --end;
  return join_lines(lines, begin, end);
}

std::string with_task_header(std::string source) {
  if (source.find("accelopt_task.h") != std::string::npos) return source;
  return "#include \"accelopt_task.h\"\n" + source;
}

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  // A leading "plan 3" (the heading's number) says nothing about the plan.
  if (words.size() >= 2 && words[0] == "plan" &&
      std::all_of(words[1].begin(), words[1].end(), ::isdigit)) {
    words.erase(words.begin(), words.begin() + 2);
  } else if (!words.empty() && words[0] == "plan") {
    words.erase(words.begin());
  }
  return words;
}

std::set<std::string> shingles(const std::string& text) {
  std::vector<std::string> words = words_of(text);
  std::set<std::string> out;
  if (words.size() < 3) {
    std::string all;
    for (const std::string& word : words) all += word + " ";
    if (!all.empty()) out.insert(all);
    return out;
  }
  for (size_t i = 0; i + 3 <= words.size(); ++i) {
    out.insert(words[i] + " " + words[i + 1] + " " + words[i + 2]);
  }
  return out;
}

// Parses `text` as JSON, forgiving raw newlines and tabs inside strings (models put code there).
std::optional<Json> lenient_json(const std::string& text) {
  Json value = Json::parse(text, nullptr, false, true);
  if (!value.is_discarded()) return value;
  std::string fixed;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\' && i + 1 < text.size()) {
        fixed += c;
        fixed += text[++i];
        continue;
      }
      if (c == '"') in_string = false;
      if (c == '\n') {
        fixed += "\\n";
        continue;
      }
      if (c == '\t') {
        fixed += "\\t";
        continue;
      }
      if (c == '\r') continue;
    } else if (c == '"') {
      in_string = true;
    }
    fixed += c;
  }
  value = Json::parse(fixed, nullptr, false, true);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

std::string json_text(const Json& object, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (object.contains(key) && object[key].is_string())
      return trim(object[key].get<std::string>());
  }
  return {};
}

// A snippet as stored: without fences, at most 40 lines.
std::string snippet(const std::string& text) {
  std::vector<CodeBlock> blocks = fenced_blocks(text);
  std::string code = blocks.empty() ? text : blocks.front().code;
  std::vector<std::string> lines = split_lines(trim(code));
  if (lines.size() > 40) {
    lines.resize(40);
    lines.push_back("// ...");
  }
  return trim(join_lines(lines, 0, lines.size()));
}

bool says_no_optimization(const std::string& text) {
  std::string normalized;
  for (const std::string& word : words_of(text)) normalized += word + " ";
  static const std::vector<std::string> phrases = {
      "no optimization found",         "no optimisation found",
      "no optimization was found",     "no generalizable optimization",
      "no generalisable optimization", "nothing generalizable",
      "no meaningful optimization",    "no transferable optimization",
      "no optimization to report"};
  for (const std::string& phrase : phrases) {
    if (normalized.find(phrase) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::string strip_thinking(const std::string& text) {
  static const std::regex thinking(R"(<(think|thinking)>[\s\S]*?</\1>)");
  std::string out = std::regex_replace(text, thinking, "");
  // An unclosed block at the start (the answer was cut while thinking) is all thinking.
  std::string start = trim(out);
  if (start.starts_with("<think>") || start.starts_with("<thinking>")) return {};
  return out;
}

bool defines_function(const std::string& code, const std::string& name) {
  std::string text = kernel::strip_comments_and_literals(code);
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    if (at > 0 && is_identifier_char(text[at - 1])) continue;
    size_t i = at + name.size();
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size() || text[i] != '(') continue;
    int depth = 0;
    for (; i < text.size(); ++i) {
      if (text[i] == '(') ++depth;
      if (text[i] == ')' && --depth == 0) break;
    }
    if (i >= text.size()) return false;
    ++i;
    // After the parameters: qualifiers and attributes, then the body.
    while (i < text.size()) {
      while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      if (i < text.size() && is_identifier_char(text[i])) {
        while (i < text.size() && is_identifier_char(text[i])) ++i;
        continue;
      }
      if (i < text.size() && text[i] == '(') {  // __attribute__((...)), noexcept(...)
        int nested = 0;
        for (; i < text.size(); ++i) {
          if (text[i] == '(') ++nested;
          if (text[i] == ')' && --nested == 0) break;
        }
        ++i;
        continue;
      }
      break;
    }
    if (i < text.size() && text[i] == '{') return true;
  }
  return false;
}

roles::Implementation extract_kernel(const std::string& answer, const std::string& entry_point,
                                     bool truncated) {
  roles::Implementation result;
  std::string text = strip_thinking(answer);
  std::vector<CodeBlock> blocks = fenced_blocks(text);
  const CodeBlock* chosen = nullptr;
  for (const CodeBlock& block : blocks) {
    if (!defines_function(block.code, entry_point)) continue;
    bool complete = block.code.find("accelopt_task.h") != std::string::npos;
    bool chosen_complete =
        chosen != nullptr && chosen->code.find("accelopt_task.h") != std::string::npos;
    if (chosen == nullptr || complete || !chosen_complete) chosen = &block;
  }
  if (chosen != nullptr) {
    result.source = with_task_header(trim(chosen->code) + "\n");
    return result;
  }
  std::string cut = truncated ? " (the answer was cut at the token limit)" : "";
  if (blocks.empty()) {
    std::string code = bare_code(text);
    if (!code.empty() && defines_function(code, entry_point)) {
      result.source = with_task_header(trim(code) + "\n");
      return result;
    }
    result.parse_error =
        trim(text).empty() ? "the answer is empty" + cut
                           : "the answer has no code block and no definition of the entry point '" +
                                 entry_point + "'" + cut;
    return result;
  }
  result.parse_error = "none of the answer's " + std::to_string(blocks.size()) +
                       " code block(s) defines the entry point '" + entry_point + "'" + cut;
  return result;
}

std::string clean_plan(const std::string& answer) {
  return trim(strip_thinking(answer));
}

std::vector<std::string> split_plans(const std::string& answer) {
  std::string text = trim(strip_thinking(answer));
  std::vector<std::string> plans;
  if (text.empty()) return plans;
  std::vector<std::string> lines = split_lines(text);
  auto split_at = [&](const std::regex& heading) {
    std::vector<size_t> starts;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (std::regex_search(lines[i], heading)) starts.push_back(i);
    }
    std::vector<std::string> out;
    for (size_t k = 0; k < starts.size(); ++k) {
      size_t end = k + 1 < starts.size() ? starts[k + 1] : lines.size();
      std::string plan = trim(join_lines(lines, starts[k], end));
      if (!plan.empty()) out.push_back(plan);
    }
    return out;
  };
  static const std::regex heading(
      R"(^\s*(#{1,6}\s*)?(\*\*)?\s*(plan|idea|proposal|option)\s*#?\s*[0-9]+\b)",
      std::regex::icase);
  plans = split_at(heading);
  if (!plans.empty()) return plans;

  // A JSON array of strings or of objects with a plan/description/text field.
  std::vector<CodeBlock> blocks = fenced_blocks(text);
  std::string json = blocks.empty() ? text : blocks.front().code;
  size_t open = json.find('['), close = json.rfind(']');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    if (std::optional<Json> array = lenient_json(json.substr(open, close - open + 1));
        array && array->is_array()) {
      for (const Json& item : *array) {
        std::string plan;
        if (item.is_string()) {
          plan = trim(item.get<std::string>());
        } else if (item.is_object()) {
          std::string title = json_text(item, {"title", "name"});
          std::string body = json_text(item, {"plan", "description", "text", "details"});
          plan = title.empty() ? body : body.empty() ? title : title + "\n" + body;
        }
        if (!plan.empty()) plans.push_back(plan);
      }
      if (!plans.empty()) return plans;
    }
  }
  static const std::regex numbered(R"(^[0-9]+[.)]\s+\S)");
  plans = split_at(numbered);
  if (plans.size() >= 2) return plans;
  return {text};
}

double plan_similarity(const std::string& a, const std::string& b) {
  std::set<std::string> left = shingles(a), right = shingles(b);
  if (left.empty() && right.empty()) return 1;
  size_t common = 0;
  for (const std::string& shingle : left) common += right.count(shingle);
  size_t all = left.size() + right.size() - common;
  return all == 0 ? 1 : static_cast<double>(common) / static_cast<double>(all);
}

std::vector<roles::Plan> drop_near_duplicates(std::vector<roles::Plan> plans, double threshold) {
  std::vector<roles::Plan> kept;
  for (roles::Plan& plan : plans) {
    if (trim(plan.text).empty()) continue;
    bool duplicate = std::any_of(kept.begin(), kept.end(), [&](const roles::Plan& other) {
      return plan_similarity(plan.text, other.text) >= threshold;
    });
    if (!duplicate) kept.push_back(std::move(plan));
  }
  return kept;
}

namespace {

// "faster" or "not faster" from what a summarizer wrote in its answer's `effect`; empty when it
// wrote neither.
std::string lesson_effect(const std::string& written) {
  std::string text = lower(trim(written));
  if (text.find("not") != std::string::npos || text.find("slower") != std::string::npos ||
      text.find("avoid") != std::string::npos) {
    return "not faster";
  }
  if (text.find("faster") != std::string::npos) return "faster";
  return {};
}

}  // namespace

SummaryAnswer parse_summary(const std::string& answer) {
  SummaryAnswer result;
  std::string text = trim(strip_thinking(answer));
  if (text.empty()) {
    result.error = "the answer is empty";
    return result;
  }
  // JSON: a ```json block, else the outermost braces.
  std::vector<CodeBlock> blocks = fenced_blocks(text);
  std::vector<std::string> candidates;
  for (const CodeBlock& block : blocks) {
    if (block.language == "json" || trim(block.code).starts_with("{"))
      candidates.push_back(block.code);
  }
  size_t open = text.find('{'), close = text.rfind('}');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    candidates.push_back(text.substr(open, close - open + 1));
  }
  for (const std::string& candidate : candidates) {
    std::optional<Json> json = lenient_json(candidate);
    if (!json || !json->is_object()) continue;
    if (json->value("no_optimization", false) || json->value("no_optimization_found", false) ||
        (json->contains("found") && (*json)["found"].is_boolean() &&
         !(*json)["found"].get<bool>())) {
      result.no_optimization = true;
      return result;
    }
    roles::Insight insight;
    insight.title = json_text(*json, {"title", "name"});
    insight.description = json_text(*json, {"description", "insight", "summary", "explanation"});
    insight.before_snippet = snippet(json_text(*json, {"before", "before_snippet", "slow"}));
    insight.after_snippet = snippet(json_text(*json, {"after", "after_snippet", "fast"}));
    insight.effect = lesson_effect(json_text(*json, {"effect", "lesson"}));
    if (!insight.title.empty() && !insight.description.empty()) {
      result.insight = std::move(insight);
      return result;
    }
    if (insight.title.empty() && insight.description.empty() && says_no_optimization(text)) {
      result.no_optimization = true;
      return result;
    }
  }
  // Sections: "Title: …", "**Description:** …", "## Before" with a code block, ...
  static const std::regex section(
      R"(^\s*(#{1,6}\s*)?(\*\*)?\s*(title|description|effect|before|after)\s*(\*\*)?\s*:?\s*(\*\*)?\s*(.*)$)",
      std::regex::icase);
  std::map<std::string, std::string> sections;
  std::string current;
  for (const std::string& line : split_lines(text)) {
    std::smatch match;
    // A heading line only: "Title: x" or "## Before", not a sentence that starts with "After".
    if (std::regex_match(line, match, section) &&
        (match[1].matched || match[2].matched || line.find(':') != std::string::npos ||
         trim(match[6].str()).empty())) {
      current = lower(match[3].str());
      sections[current] = match[6].str() + "\n";
      continue;
    }
    if (!current.empty()) sections[current] += line + "\n";
  }
  if (!trim(sections["title"]).empty() && !trim(sections["description"]).empty()) {
    roles::Insight insight;
    insight.title = trim(sections["title"]);
    insight.description = trim(sections["description"]);
    insight.before_snippet = snippet(sections["before"]);
    insight.after_snippet = snippet(sections["after"]);
    insight.effect = lesson_effect(sections["effect"]);
    result.insight = std::move(insight);
    return result;
  }
  if (says_no_optimization(text)) {
    result.no_optimization = true;
    return result;
  }
  result.error =
      "the answer has neither a JSON object with title and description nor Title: and "
      "Description: sections";
  return result;
}

}  // namespace accelopt::agents
