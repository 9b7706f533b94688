// The machine as the agents see it for one task: the platform's description (machine_description.h)
// plus the ceilings that task meets, since a ceiling depends on the working set (bandwidth) and on
// the threads the task may use (the CPU probe measures one core).
#pragma once

#include "common/json.h"
#include "platform/machine_description.h"
#include "task/task.h"

namespace accelopt::platform {

// `description.prompt_variables`, plus, when the description has peaks, a `ceilings` object for
// `task` at `workload` (numbers as text, formatted for reading):
//   fma_gflops, vector_gflops   the FMA and other-arithmetic ceilings % of peak is scored against
//   gbytes_per_second           the bandwidth at this task's working set
//   working_set                 the task's roofline bytes ("117 MiB")
//   scope                       "one core", or "the whole device"
//   threads                     the task's threads (text)
//   reach                       what T threads may reach: "4 threads may reach 4 × these" (CPU,
//                               threads > 1 only)
//   mm_flops, vec_flops, bytes  the task's counts ("1.07 GFLOP", "117 MiB")
//   peak_seconds                the least time at these ceilings ("2.1 ms")
//   bound                       "fma", "vector" or "memory": which ceiling sets peak_seconds
//   physics_limit_percent       above this % of peak a verdict is REJECTED_PHYSICS ("423")
//   percent_of_peak_rule        one sentence: how % of peak is computed and what counts as what
// Without peaks the result is the prompt variables unchanged.
Json machine_variables(const MachineDescription& description, const task::Task& task,
                       const task::Workload& workload);

// "117 MiB", "48 KiB", "512 B".
std::string bytes_text(double bytes);

}  // namespace accelopt::platform
