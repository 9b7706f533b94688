// What every platform's evaluate() shares, whatever runs the kernel: how a verdict starts and
// finishes, and the byte size of each of a workload's buffers.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "task/task.h"

namespace accelopt::platform {

// A verdict under way: from construction it names the task, the workload, the source's hash and
// the tolerance; the platform fills in the rest and ends it with finish().
struct VerdictStart {
  VerdictStart(const EvalRequest& request, const task::Workload& workload);

  // Sets the status, the message unless `message` is empty, and the wall time since construction;
  // returns the verdict as it now stands.
  Verdict finish(Status status, std::string message);

  Verdict verdict;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

// The byte size of each of the task's inputs, then each output, at `workload`.
std::vector<size_t> buffer_sizes(const task::Task& task, const task::Workload& workload);

}  // namespace accelopt::platform
