// The CPU platform's line in the registry (platform/registry.h), and the CPU as it describes
// itself to the agents and to `accelopt machine`.
#pragma once

#include "platform/cpu/compiler.h"
#include "platform/cpu/machine.h"
#include "platform/registry.h"

namespace accelopt::platform::cpu {

PlatformEntry platform_entry();

// The CPU platform without ceilings, computing reference outputs for the other platforms.
CpuReference make_reference(const PlatformSettings& settings);

// This CPU, its measured ceilings and the compiler that builds its kernels, as facts and as the
// `machine` variables of prompts/platform/cpu.mustache.
MachineDescription describe_machine(const CpuDescription& cpu, const MachinePeaks& peaks,
                                    const Compiler& compiler);

}  // namespace accelopt::platform::cpu
