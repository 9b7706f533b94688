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

// The physics check has three zones, by the least time the task's counted work needs at the
// device's measured ceilings over the latency:
//   - at most 100 %: normal;
//   - over 100 % but within kPhysicsMargin: PASSED, marked "over the measured ceiling: the ceiling
//     or the timing is off" (a probe that read low, a latency that read short);
//   - beyond kPhysicsMargin: impossible, REJECTED_PHYSICS.
// The margin is what the two readings can be off by together, each measured on a shared 2-core
// machine by build/benchmarks/physics_margin (docs/harness.md, "Physics margin", has the runs):
// how far one probe's ceiling reads below another's (the largest best/worst over ceilings and
// probes), times how far one kernel's latency moves between evaluations (largest/smallest). One
// margin for every platform. Measured 2026-12-05, `physics_margin 4 5` at a load of 7-10:
// bandwidth at 256 MiB 51.1 against 17.8 GB/s over four probes of four rounds each (the FMA and
// vector peaks 1.06); the axpy baseline on its default workload 417.6 against 612 us.
inline constexpr double kProbeSpread = 2.88;
inline constexpr double kLatencySpread = 1.47;
inline constexpr double kPhysicsMargin = kProbeSpread * kLatencySpread;
// What a verdict in the middle zone says beside its % of peak.
inline constexpr const char* kOverProbeCeiling =
    "over the measured ceiling: the ceiling or the timing is off";

// The least time the task's counted work can take at `peaks`: the roofline's peak time, shared
// among the task's threads when the ceilings are one core's (CeilingScope).
double least_seconds(const task::Task& task, const kernel::RooflineScore& score,
                     CeilingScope scope);

// Ends a verdict whose correctness and timing (`started.verdict.timing`) are in: the roofline score
// at `peaks` (none when they are empty: no score and no physics check), the score's figures in the
// profile, then REJECTED_PHYSICS when the latency beats physics by more than the margin, else
// PASSED with the sentence every platform prints (marked in the middle zone). `device` names the
// device in the rejection ("this machine's CPU", "this GPU"). With `alongside` the score uses that
// ceiling, timed in the latency's conditions, in place of the probe's; the physics check keeps the
// probe's (the least time the work can take). A score over 100 % is said to be over the measured
// ceiling, never printed unmarked.
Verdict finish_timed(VerdictStart& started, const task::Task& task, const task::Workload& workload,
                     const Peaks& peaks, const std::string& device,
                     const std::optional<CeilingAlongside>& alongside = std::nullopt);

// The byte size of each of the task's inputs, then each output, at `workload`.
std::vector<size_t> buffer_sizes(const task::Task& task, const task::Workload& workload);

// For platforms that run float32 tensors only (command): throws UserError naming the first
// tensor of another dtype and saying that the CPU platform runs it.
void require_float32_tensors(const task::Task& task, const std::string& platform);

}  // namespace accelopt::platform
