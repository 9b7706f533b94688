#include "platform/registry.h"

#include "common/error.h"
#include "platform/command/command_entry.h"
#include "platform/cpu/cpu_entry.h"
#include "platform/cuda/cuda_entry.h"

namespace accelopt::platform {

const std::vector<PlatformEntry>& registered_platforms() {
  static const std::vector<PlatformEntry> platforms = {
      cpu::platform_entry(),
      cuda::platform_entry(),
      command::platform_entry(),
  };
  return platforms;
}

std::string platform_forms() {
  const std::vector<PlatformEntry>& entries = registered_platforms();
  std::string forms;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) forms += i + 1 == entries.size() ? " or " : ", ";
    forms += entries[i].usage;
  }
  return forms;
}

PlatformChoice parse_platform_choice(const std::string& value) {
  for (const PlatformEntry& entry : registered_platforms()) {
    bool named = value == entry.name;
    bool with_argument = entry.takes_argument && value.size() > entry.name.size() + 1 &&
                         value.starts_with(entry.name + ":");
    if (!(entry.takes_argument ? with_argument : named)) continue;
    PlatformChoice choice;
    choice.name = entry.name;
    choice.value = value;
    choice.kernel_extension = entry.kernel_extension;
    choice.prompt_fragment = entry.prompt_fragment;
    choice.devices_per_worker = entry.devices_per_worker;
    if (entry.takes_argument) {
      choice.argument = std::filesystem::absolute(value.substr(entry.name.size() + 1)).string();
      choice.value = entry.name + ":" + choice.argument;
      if (entry.configure) entry.configure(choice);
    }
    return choice;
  }
  throw UserError("--platform " + value + ": expected " + platform_forms() +
                  " (docs/evaluator-protocol.md)");
}

CpuReference make_cpu_reference(const PlatformSettings& settings) {
  return cpu::make_reference(settings);
}

BuiltPlatform make_platform(const PlatformChoice& choice, const PlatformSettings& settings) {
  for (const PlatformEntry& entry : registered_platforms()) {
    if (entry.name != choice.name) continue;
    BuiltPlatform built;
    if (entry.needs_cpu_reference) built.reference = make_cpu_reference(settings);
    MadePlatform made = entry.make(choice, settings, built.reference.cases);
    built.platform = std::move(made.platform);
    built.description = std::move(made.description);
    built.prompt_fragment = choice.prompt_fragment;
    return built;
  }
  throw InternalError("no platform named '" + choice.name + "' in the registry");
}

MachineDescription remote_description(const PlatformChoice& choice) {
  MachineDescription description;
  description.platform = choice.name;
  std::string where = "remote workers (`accelopt worker --platform " + choice.value +
                      "`); their machines are not described here";
  description.facts = {{"platform", choice.value}, {"where", where}};
  description.prompt_variables = {{"where", where}};
  return description;
}

}  // namespace accelopt::platform
