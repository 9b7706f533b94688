// Input tensors drawn as a task's definition says, the same on every machine for the same seed:
// a fixed generator (SplitMix64) and Box-Muller, not the standard library's unspecified ones.
#pragma once

#include <cstdint>
#include <vector>

#include "task/task.h"

namespace accelopt::platform::cpu {

// One float array per input, in definition order. Throws UserError for dtypes the CPU harness does
// not run yet.
std::vector<std::vector<float>> generate_inputs(const task::Task& task,
                                                const task::Workload& workload, uint64_t seed);

}  // namespace accelopt::platform::cpu
