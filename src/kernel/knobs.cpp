#include "kernel/knobs.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "common/error.h"

namespace accelopt::kernel {
namespace {

// docs/knobs.md: ^constexpr int NAME = VALUE; *// knob:( +VALUE)+ *$
const std::regex& knob_pattern() {
  static const std::regex pattern(
      R"(^(constexpr int ([A-Z][A-Z0-9_]*) = )(-?[0-9]+)(; *// knob:((?: +-?[0-9]+)+) *)$)");
  return pattern;
}

std::vector<std::string> split_lines(const std::string& source) {
  std::vector<std::string> lines;
  std::string::size_type start = 0;
  while (start <= source.size()) {
    auto end = source.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(source.substr(start));
      break;
    }
    lines.push_back(source.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string without_carriage_return(const std::string& line) {
  if (!line.empty() && line.back() == '\r') return line.substr(0, line.size() - 1);
  return line;
}

// `line` must outlive `match`.
bool parse_line(const std::string& line, Knob& knob, std::smatch& match) {
  if (!std::regex_match(line, match, knob_pattern())) return false;
  knob.name = match[2].str();
  try {
    knob.value = std::stoi(match[3].str());
    std::istringstream values(match[5].str());
    int value = 0;
    knob.allowed.clear();
    while (values >> value) knob.allowed.push_back(value);
  } catch (const std::out_of_range&) {
    return false;
  }
  std::set<int> distinct(knob.allowed.begin(), knob.allowed.end());
  return distinct.size() == knob.allowed.size() && !knob.allowed.empty();
}

}  // namespace

int Knob::index() const {
  auto found = std::find(allowed.begin(), allowed.end(), value);
  return found == allowed.end() ? -1 : static_cast<int>(found - allowed.begin());
}

std::vector<Knob> parse_knobs(const std::string& source) {
  std::vector<Knob> knobs;
  std::set<std::string> seen;
  auto lines = split_lines(source);
  for (size_t index = 0; index < lines.size(); ++index) {
    Knob knob;
    std::smatch match;
    std::string text = without_carriage_return(lines[index]);
    if (!parse_line(text, knob, match)) continue;
    if (!seen.insert(knob.name).second) continue;
    knob.line = static_cast<int>(index) + 1;
    knobs.push_back(std::move(knob));
  }
  return knobs;
}

std::string set_knob(const std::string& source, const std::string& name, int value) {
  auto lines = split_lines(source);
  for (std::string& line : lines) {
    Knob knob;
    std::smatch match;
    std::string text = without_carriage_return(line);
    if (!parse_line(text, knob, match) || knob.name != name) continue;
    if (std::find(knob.allowed.begin(), knob.allowed.end(), value) == knob.allowed.end()) {
      throw UserError(fmt::format("knob {}: {} is not one of its allowed values ({})", name, value,
                                  fmt::join(knob.allowed, " ")));
    }
    bool carriage_return = text.size() != line.size();
    line = match[1].str() + std::to_string(value) + match[4].str() + (carriage_return ? "\r" : "");
    std::string result;
    for (size_t index = 0; index < lines.size(); ++index) {
      if (index > 0) result += '\n';
      result += lines[index];
    }
    return result;
  }
  throw UserError(fmt::format("the kernel declares no knob {}", name));
}

}  // namespace accelopt::kernel
