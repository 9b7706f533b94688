#include "platform/source_rules.h"

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

}  // namespace

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
