#include "platform/command/command_entry.h"

#include <fmt/format.h>

#include <tuple>

#include "platform/command/command_config.h"
#include "platform/machine_prompt.h"

namespace accelopt::platform::command {

MachineDescription describe_machine(const CommandPlatformOptions& options) {
  MachineDescription description;
  description.platform = "command";
  description.facts = {{"evaluator", options.name + " (" + options.argv.front() + ")"},
                       {"kernels", options.kernel_extension}};
  Json machine = {{"evaluator", options.name}, {"kernel_extension", options.kernel_extension}};
  for (auto [label, key, value] : {std::tuple{"device", "device_name", &options.device_name},
                                   std::tuple{"device kind", "device_kind", &options.device_kind},
                                   std::tuple{"toolchain", "toolchain", &options.toolchain}}) {
    if (value->empty()) continue;
    description.facts.emplace_back(label, *value);
    machine[key] = *value;
  }
  if (!options.ceilings.empty()) {
    const Peaks& peaks = options.ceilings;
    std::string scope = peaks.scope == CeilingScope::kOneCore ? "one core" : "the whole device";
    description.facts.emplace_back(
        "ceilings", fmt::format("FMA {:.1f} GFLOP/s, other vector arithmetic {:.1f} GFLOP/s ({})",
                                peaks.fma_gflops, peaks.vector_gflops, scope));
    Json bandwidth = Json::array();
    for (const BandwidthPoint& point : peaks.bandwidth) {
      std::string size = bytes_text(point.working_set_bytes);
      description.facts.emplace_back("bandwidth at " + size,
                                     fmt::format("{:.1f} GB/s", point.gbytes_per_second));
      bandwidth.push_back({{"working_set", size},
                           {"gbytes_per_second", fmt::format("{:.1f}", point.gbytes_per_second)}});
    }
    machine["fma_gflops"] = fmt::format("{:.1f}", peaks.fma_gflops);
    machine["vector_gflops"] = fmt::format("{:.1f}", peaks.vector_gflops);
    machine["bandwidth"] = bandwidth;
    machine["ceiling_scope"] = scope;
    description.peaks = peaks;
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
  entry.prompt_fragment = "command";
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
