// The evaluator-command platform's line in the registry (platform/registry.h): `--platform
// command:<file.json>`, an external evaluator described by a file (command_config.h).
#pragma once

#include "platform/command/command_platform.h"
#include "platform/registry.h"

namespace accelopt::platform::command {

PlatformEntry platform_entry();

// What the evaluator's file says of its device, as facts and `machine` variables.
MachineDescription describe_machine(const CommandPlatformOptions& options);

}  // namespace accelopt::platform::command
