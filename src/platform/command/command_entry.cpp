#include "platform/command/command_entry.h"

#include <fmt/format.h>

#include "platform/command/command_config.h"

namespace accelopt::platform::command {

MachineDescription describe_machine(const CommandPlatformOptions& options) {
  MachineDescription description;
  description.platform = "command";
  description.facts = {{"evaluator", options.name + " (" + options.argv.front() + ")"},
                       {"kernels", options.kernel_extension}};
  Json machine = {{"evaluator", options.name}};
  if (!options.ceilings.empty()) {
    description.facts.emplace_back(
        "ceilings", fmt::format("FMA {:.1f} GFLOP/s, other vector arithmetic {:.1f} GFLOP/s ({})",
                                options.ceilings.fma_gflops, options.ceilings.vector_gflops,
                                options.ceilings.scope == CeilingScope::kOneCore ? "one core"
                                                                                 : "whole device"));
    machine["fma_gflops"] = fmt::format("{:.1f}", options.ceilings.fma_gflops);
    machine["vector_gflops"] = fmt::format("{:.1f}", options.ceilings.vector_gflops);
  } else {
    description.facts.emplace_back("ceilings", "none given: no % of peak, no physics check");
  }
  description.prompt_variables = machine;
  return description;
}

PlatformEntry platform_entry() {
  PlatformEntry entry;
  entry.name = "command";
  entry.usage = "command:<file.json>";
  entry.summary = "an external evaluator described by a file (docs/evaluator-protocol.md)";
  entry.kernel_extension = ".cpp";
  entry.prompt_fragment = "cpu";
  entry.takes_argument = true;
  entry.needs_cpu_reference = true;
  entry.configure = [](PlatformChoice& choice) {
    CommandPlatformOptions options = load_command_config(choice.argument);
    choice.kernel_extension = options.kernel_extension;
    choice.prompt_fragment = options.prompt_fragment;
    choice.devices_per_worker = options.devices_per_worker;
  };
  entry.make = [](const PlatformChoice& choice, const PlatformSettings&,
                  const ReferenceCases& references) {
    CommandPlatformOptions options = load_command_config(choice.argument);
    MadePlatform made;
    made.description = describe_machine(options);
    made.platform = std::make_unique<CommandPlatform>(options, references);
    return made;
  };
  return entry;
}

}  // namespace accelopt::platform::command
