// An evaluator-command platform described in a file, so that a user names an evaluator without a
// line of code (and the command line can offer `--platform command --evaluator FILE`):
//
//   {
//     "name": "box-cpu",
//     "argv": ["evaluators/ssh-cpu/accelopt-ssh-evaluator", "--host", "me@box"],
//     "correctness": "evaluator",            // or "values", "checksums"
//     "timeout_seconds": 900,
//     "environment": ["SSH_AUTH_SOCK=/run/user/1000/ssh-agent"],
//     "kernel_extension": ".cpp",             // a task's baseline is baseline<kernel_extension>
//     "prompt_fragment": "command",           // prompts/platform/<this>.mustache (default: by
//                                             // extension, "cuda" for .cu, else "command")
//     "device": {"name": "trn2-host", "kind": "Trainium 2", "toolchain": "Neuron SDK 2.21"},
//     "devices_per_worker": 0,                // accelerators one worker holds (Slurm --gres)
//     "ceilings": { ... }                      // `accelopt machine probe --json` of that device
//   }
//
// Relative paths in argv[0] are taken from the file's folder.
#pragma once

#include <filesystem>

#include "platform/command/command_platform.h"

namespace accelopt::platform::command {

// Throws UserError "<file>: <field>: <why>".
CommandPlatformOptions load_command_config(const std::filesystem::path& file);
CommandPlatformOptions parse_command_config(const Json& json, const std::filesystem::path& folder,
                                            const std::string& origin);

}  // namespace accelopt::platform::command
