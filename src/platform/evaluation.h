// What every platform's evaluate() shares, whatever runs the kernel: how a verdict starts, how a
// timed verdict ends (roofline score, physics check, the PASSED sentence), and the byte size of
// each of a workload's buffers.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "platform/roofline.h"
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

// A latency below the least time the task's counted work needs at the device's measured ceilings,
// divided by this margin, is impossible: REJECTED_PHYSICS. One margin for every platform;
// docs/harness.md ("Physics margin") gives the measurement behind it.
inline constexpr double kPhysicsMargin = 1.25;

// The least time the task's counted work can take at `peaks`: the roofline's peak time, shared
// among the task's threads when the ceilings are one core's (CeilingScope).
double least_seconds(const task::Task& task, const kernel::RooflineScore& score,
                     CeilingScope scope);

// Ends a verdict whose correctness and timing (`started.verdict.timing`) are in: the roofline score
// at `peaks` (none when they are empty: no score and no physics check), the score's figures in the
// profile, then REJECTED_PHYSICS when the latency beats physics, else PASSED with the sentence
// every platform prints. `device` names the device in the rejection ("this machine's CPU", "this
// GPU"). With `alongside` the score uses that ceiling, timed in the latency's conditions, in
// place of the probe's; the physics check keeps the probe's (the least time the work can take).
// A score over 100 % is said to be over the measured ceiling, never printed unmarked.
Verdict finish_timed(VerdictStart& started, const task::Task& task, const task::Workload& workload,
                     const Peaks& peaks, const std::string& device,
                     const std::optional<CeilingAlongside>& alongside = std::nullopt);

// The byte size of each of the task's inputs, then each output, at `workload`.
std::vector<size_t> buffer_sizes(const task::Task& task, const task::Workload& workload);

// For platforms that run float32 tensors only (cuda, command): throws UserError naming the first
// tensor of another dtype and saying that the CPU platform runs it.
void require_float32_tensors(const task::Task& task, const std::string& platform);

}  // namespace accelopt::platform
