// The CPU platform's side of paired timing (platform/paired_timing.h): the candidate and the
// anchor in two runner processes pinned to one core, the idle one SIGSTOPped. Before every turn
// the side's inputs move to the next case and its outputs are set to NaN; after every turn its
// outputs are checked again, so a kernel that replays old answers fails.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "platform/cpu/call_check.h"
#include "platform/cpu/runner.h"
#include "platform/cpu/shared_buffers.h"
#include "platform/paired_timing.h"

namespace accelopt::platform::cpu {

// A started runner and the buffers it calls on.
struct TimedKernel {
  Runner& runner;
  SharedBuffers& buffers;
};

class RunnerTurns : public PairedTurns {
 public:
  // Both runners start paused. `cases` must outlive this.
  RunnerTurns(const task::Task& task, const std::vector<ReferenceCase>& cases,
              TimedKernel candidate, TimedKernel anchor, std::string anchor_name,
              std::chrono::milliseconds call_timeout);

  TurnResult run_turn(Side side, int calls) override;

 private:
  const task::Task& task_;
  const std::vector<ReferenceCase>& cases_;
  TimedKernel candidate_, anchor_;
  std::string anchor_name_;
  std::chrono::milliseconds call_timeout_;
  size_t candidate_case_ = 0, anchor_case_ = 0;
  int candidate_turns_ = 0;
};

}  // namespace accelopt::platform::cpu
