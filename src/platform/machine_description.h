// What a platform says of the device it evaluates on, in one platform-neutral form: the same facts
// for a person (`accelopt machine`, report/machine_text.h) and for the agents (the `machine`
// variables of the platform's prompt fragment, prompts/platform/<fragment>.mustache). Each
// platform fills one (registry.h); the CLI hands it to the agents.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/json.h"
#include "platform/roofline.h"

namespace accelopt::platform {

struct MachineDescription {
  std::string platform;                                    // the registry name
  std::vector<std::pair<std::string, std::string>> facts;  // label, value; in reading order
  Json prompt_variables = Json::object();
  // The ceilings the platform scores against; none when nothing was measured or given. The
  // task-specific figures of the prompt come from them (platform/machine_prompt.h).
  std::optional<Peaks> peaks;
  Json record;  // the probe's own record (`accelopt machine probe --json`); null when none
};

}  // namespace accelopt::platform
