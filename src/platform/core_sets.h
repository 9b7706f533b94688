// The cores of evaluations timed at once on one machine: each gets cores of its own, so that two
// timings never share a core (each would measure the other), from the last core down, where the
// single evaluation's timing core is (cpu/machine.h's timing_cpu). The runners of an evaluation are
// pinned to its set (EvalRequest::cores); its compiles may use any core no timing holds. Only the
// cores this process may run on count, so a process pinned to some cores (taskset, a worker
// started on a core of its own) keeps its evaluations there.
#pragma once

#include <vector>

namespace accelopt::platform {

// The cores this process may run on (its affinity), in order; all online ones where it cannot be
// read.
std::vector<int> allowed_cpus();

// `concurrency` sets of `threads` cores each out of `cpus` (allowed_cpus() when empty), from the
// last down. UserError when there are fewer than concurrency × threads.
std::vector<std::vector<int>> evaluation_cores(int concurrency, int threads,
                                               std::vector<int> cpus = {});

}  // namespace accelopt::platform
