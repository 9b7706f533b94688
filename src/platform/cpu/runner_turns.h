// The CPU platform's side of paired timing (platform/paired_timing.h): the candidate and the
// anchor in two runner processes pinned to one core, the idle one SIGSTOPped.
//
// Inputs vary within a turn and the calls in it are checked, not only its last state. Before every
// turn each input slot (runner_protocol.h's SlotLayout) gets one case of the pool (the
// evaluation's cases from the task's own distributions, rotating by one slot a turn) and every
// output slot NaN. The turn's seed, fresh from getrandom(2), picks each call's input and output
// slot at random; after the turn the last call on each output slot has left its outputs there,
// and those calls, at places in the turn nobody knew before it was drawn, are checked against the
// reference of the case they read. Both sides' n-th turns get the same cases in the same slots and
// the same seed: the same work and the same cache state.
//
// Both sides call on one set of buffers (the region both runners map). With one set each, a
// memory-bound kernel timed against itself (adamw's CPU workload, benchmarks/timing_honesty) came
// out up to 5 % off 1.0, beyond its own interval, in 4 of 6 evaluations: an offset that stays for
// a whole evaluation, as the placement of each side's pages would. One set takes that placement
// out of the comparison. Sharing is safe: the idle side is stopped, and every turn rewrites the
// inputs, outputs and canaries before it starts, so neither side can read or leave anything for
// the other.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "platform/cpu/call_check.h"
#include "platform/cpu/runner.h"
#include "platform/paired_timing.h"
#include "platform/shared_buffers.h"

namespace accelopt::platform::cpu {

// A timed turn's deadline: kTurnDeadlineFactor times what the turn's calls take at
// `seconds_per_call` (the side's previous turn), never under `call_timeout` (what one call gets:
// short turns on a busy machine) and never over `call_timeout` for each call. Without a previous
// turn, the latter. A kernel that hangs inside a turn of thousands of calls is then a TIMEOUT
// within seconds, not after hours.
inline constexpr double kTurnDeadlineFactor = 10;
std::chrono::milliseconds turn_deadline(int calls, std::optional<double> seconds_per_call,
                                        std::chrono::milliseconds call_timeout);

// A started runner and the buffers it calls on.
struct TimedKernel {
  Runner& runner;
  SharedBuffers& buffers;
};

class RunnerTurns : public PairedTurns {
 public:
  // Both runners start paused. The buffers have `layout`; the sides may share them. `cases` must
  // outlive this.
  RunnerTurns(const task::Task& task, const std::vector<ReferenceCase>& cases, SlotLayout layout,
              TimedKernel candidate, TimedKernel anchor, std::string anchor_name,
              std::chrono::milliseconds call_timeout);

  TurnResult run_turn(Side side, int calls) override;

 private:
  // Puts turn `turn`'s cases in the input slots and NaN in the output slots; returns each input
  // slot's case.
  std::vector<const ReferenceCase*> load_turn(SharedBuffers& buffers, int turn) const;
  // Checks the calls whose outputs the turn left (see above); false with `verdict` filled.
  bool check_turn(const TimedKernel& kernel, const std::vector<const ReferenceCase*>& slot_cases,
                  uint64_t seed, int calls, int turn, Verdict& verdict) const;

  const task::Task& task_;
  const std::vector<ReferenceCase>& cases_;
  SlotLayout layout_;
  TimedKernel candidate_, anchor_;
  std::string anchor_name_;
  std::chrono::milliseconds call_timeout_;
  int candidate_turns_ = 0, anchor_turns_ = 0;
  std::vector<uint64_t> turn_seeds_;  // turn n's seed, for both sides
  // Wall seconds per call in each side's last turn, for the next turn's deadline.
  std::optional<double> candidate_per_call_, anchor_per_call_;
};

}  // namespace accelopt::platform::cpu
