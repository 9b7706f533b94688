// The platforms accelopt evaluates kernels on, each a sibling folder behind platform.h that
// describes itself here: its --platform name, the kernel files it takes, the prompt fragment its
// agents read, how many devices one worker needs, how it is built, and the machine it runs on.
// cli, worker, slurm, eval and bench read this table and nothing else about platforms.
//
// A new platform is its folder (a library accelopt_platform_<name> that defines its entry), its
// name in platform/CMakeLists.txt's ACCELOPT_PLATFORMS, and one line in registry.cpp's table;
// docs/contributing.md gives the steps.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "common/json.h"
#include "platform/checker.h"
#include "platform/machine_description.h"
#include "platform/platform.h"

namespace accelopt::platform {

// What the command line hands every platform it builds.
struct PlatformSettings {
  std::ostream* progress = nullptr;  // where a probe says what it does; null: silent
  std::string compiler{};            // C++ compiler for CPU kernels and references; empty: g++
  bool probe_again = false;          // measure the ceilings afresh instead of the cached figures
};

// A --platform value, read: which entry, and what the run records.
struct PlatformChoice {
  std::string name;              // the entry's: "cpu", "cuda", "command"
  std::string value;             // what a run records: the flag's value, any file made absolute
  std::string argument;          // after "name:" for entries that take one (an absolute path)
  std::string kernel_extension;  // a task's baseline is baseline<kernel_extension>
  std::string prompt_fragment;   // prompts/platform/<prompt_fragment>.mustache
  int devices_per_worker = 0;    // accelerators one worker holds (Slurm's --gres=gpu:N)
};

// A platform made by its entry, with the description of its machine.
struct MadePlatform {
  std::unique_ptr<Platform> platform;
  MachineDescription description;
};

// One line of the registry.
struct PlatformEntry {
  std::string name;     // a --platform value is the name, or name:<argument>
  std::string usage;    // "cpu", "command:<file.json>"
  std::string summary;  // one line for --help and for errors
  std::string kernel_extension;
  std::string prompt_fragment;
  int devices_per_worker = 0;
  bool takes_argument = false;
  // Its kernels are checked against the CPU platform's reference outputs.
  bool needs_cpu_reference = false;
  // Reads `choice.argument` into `choice` (kernel extension, settings); throws UserError naming the
  // file. Null for entries without an argument.
  std::function<void(PlatformChoice&)> configure;
  // Builds the platform; `references` is set when needs_cpu_reference. Throws UserError when the
  // platform cannot run here ("cuda: no NVIDIA device visible").
  std::function<MadePlatform(const PlatformChoice&, const PlatformSettings&,
                             const ReferenceCases& references)>
      make;
};

// The table, in the order help texts list it.
const std::vector<PlatformEntry>& registered_platforms();

// "cpu, cuda or command:<file.json>": the accepted --platform forms, for help texts.
std::string platform_forms();

// Throws UserError naming the accepted forms, or the entry's own error for its argument.
PlatformChoice parse_platform_choice(const std::string& value);

// The CPU platform as the reference-maker of the others: the task's reference outputs computed in
// its sandbox. `owner` keeps it alive.
struct CpuReference {
  std::unique_ptr<Platform> owner;
  ReferenceCases cases;  // a fresh correctness check's cases
  // The cases of seeds a person chose (`accelopt task dump`).
  std::function<std::vector<ReferenceCase>(const task::Task&, const task::Workload&,
                                           std::vector<uint64_t> seeds)>
      seeded;
};
CpuReference make_cpu_reference(const PlatformSettings& settings);

// A built platform, with the CPU platform that computes its references when it needs one.
struct BuiltPlatform {
  CpuReference reference;  // empty for the CPU itself
  std::unique_ptr<Platform> platform;
  MachineDescription description;
  std::string prompt_fragment;  // the choice's: prompts/platform/<prompt_fragment>.mustache

  Platform& get() { return *platform; }
};
BuiltPlatform make_platform(const PlatformChoice& choice, const PlatformSettings& settings = {});

// The description of a platform whose kernels run elsewhere (remote workers): its name, and that
// the workers' own machines are not described here.
MachineDescription remote_description(const PlatformChoice& choice);

}  // namespace accelopt::platform
