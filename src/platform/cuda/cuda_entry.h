// The CUDA platform's line in the registry (platform/registry.h), and the GPU as it describes
// itself to the agents and to `accelopt machine`.
#pragma once

#include <optional>
#include <string>

#include "platform/cuda/gpu_ceilings.h"
#include "platform/registry.h"

namespace accelopt::platform::cuda {

PlatformEntry platform_entry();

// The GPU's measured ceilings and the compiler, as facts and as the `machine` variables of
// prompts/platform/cuda.mustache. A recorded probe output describes a GPU on a machine without one.
MachineDescription describe_machine(const GpuCeilings& ceilings, const std::string& nvcc_version);

// The CUDA platform's precondition, checked before anything slow: why this machine shows no
// NVIDIA device, or nullopt.
std::optional<std::string> missing_nvidia_device();

}  // namespace accelopt::platform::cuda
