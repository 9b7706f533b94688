#include "report/machine_text.h"

#include <fmt/format.h>

#include <algorithm>

namespace accelopt::report {

void print_machine(std::ostream& out, const platform::MachineDescription& description) {
  size_t width = std::string("platform").size();
  for (const auto& [label, value] : description.facts) width = std::max(width, label.size());
  out << fmt::format("{:<{}}  {}\n", "platform", width, description.platform);
  for (const auto& [label, value] : description.facts) {
    out << fmt::format("{:<{}}  {}\n", label, width, value);
  }
}

}  // namespace accelopt::report
