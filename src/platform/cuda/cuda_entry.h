// The CUDA platform's line in the registry (platform/registry.h), and the GPU as it describes
// itself to the agents and to `accelopt machine`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/cuda/gpu_ceilings.h"
#include "platform/registry.h"

namespace accelopt::platform::cuda {

PlatformEntry platform_entry();

// The GPU's measured ceilings and the compiler (`nvcc --version` and the flags every kernel gets),
// as facts and as the `machine` variables of prompts/platform/cuda.mustache: those of
// GpuCeilings::prompt_variables, plus compiler ("nvcc 12.6 (V12.6.85)"), compiler_flags and rules
// (source_rules.h's table). A recorded probe output describes a GPU on a machine without one
// (testdata/h200_description.json).
MachineDescription describe_machine(const GpuCeilings& ceilings, const std::string& nvcc_version,
                                    const std::vector<std::string>& flags);

// "nvcc 12.6 (V12.6.85)" from `nvcc --version`; its last line when it names no release.
std::string nvcc_release(const std::string& nvcc_version);

// The CUDA platform's precondition, checked before anything slow: why this machine shows no
// NVIDIA device, or nullopt.
std::optional<std::string> missing_nvidia_device();

}  // namespace accelopt::platform::cuda
