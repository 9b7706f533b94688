// The rules a CUDA kernel source must follow before it is compiled: it includes only the standard
// library, the CUDA headers a kernel needs and "accelopt_task.h", and defines the entry point.
// The sandbox (cuda_runner_main.cpp) stops the rest; these rules give an agent a plain reason
// early.
#pragma once

#include <optional>
#include <string>

namespace accelopt::platform::cuda {

// Why the source is rejected, or nullopt.
std::optional<std::string> check_cuda_source(const std::string& source,
                                             const std::string& entry_point);

}  // namespace accelopt::platform::cuda
