// How much memory an evaluation holds, and how much this machine has to give: a task whose const
// tensors are gigabytes (the MoE's 1.41 G float8 weights) is run only where it fits.
#pragma once

#include <cstdint>

#include "task/task.h"

namespace accelopt::platform {

// At most, about: the inputs at their width for every correctness case and once more in the
// kernel's buffers (the timed turns' pool and slots hold fewer), a constant input (task.h) three
// times (held once for every case, in the kernel's buffers, and a timed turn's copy for the
// reference), and a Python reference's float32 copy of them all (4 bytes an element). 9.9 GB for
// the MoE on `small`, whose evaluation measured 9.65 GB at most (max RSS; 13.8 GB when its
// weights were drawn per case).
uint64_t evaluation_memory_bytes(const task::Task& task, const task::Workload& workload);

// MemAvailable from /proc/meminfo, in bytes; 0 where it cannot be read.
uint64_t available_memory_bytes();

}  // namespace accelopt::platform
