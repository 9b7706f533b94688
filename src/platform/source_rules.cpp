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

Json rules_variables(const std::vector<SourceRule>& rules) {
  Json groups = Json::array();
  for (const SourceRule* rule : rules_of(rules, RuleKind::kHeader)) {
    if (!rule->allowed) continue;
    std::string name = rule->example.empty() ? "<" + rule->spelling + ">" : rule->example;
    if (groups.empty() || groups.back()["group"] != rule->group) {
      groups.push_back({{"group", rule->group}, {"headers", "`" + name + "`"}});
    } else {
      groups.back()["headers"] = groups.back()["headers"].get<std::string>() + ", `" + name + "`";
    }
  }
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
  return {{"header_groups", groups},
          {"allowed", allowed},
          {"forbidden", forbidden},
          {"assembly", assembly},
          {"limits", limits}};
}

}  // namespace accelopt::platform
