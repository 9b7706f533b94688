// What the search sees of a target: give it a kernel source, get a verdict. The CPU platform is
// always there; others (CUDA, an external evaluator command) sit behind the same interface.
#pragma once

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/json.h"
#include "kernel/verdict.h"
#include "task/task.h"

namespace accelopt::platform {

// A platform answers in the kernel vocabulary.
using kernel::Correctness;
using kernel::RooflineScore;
using kernel::Status;
using kernel::Timing;
using kernel::Verdict;

struct TimingOptions {
  double target_half_width = 0.02;  // stop when the 95 % interval of the ratio is within ±2 %
  double budget_seconds = 20;       // or when this much timing has been spent
  int min_pairs = 10;
  int max_pairs = 400;
  int warmup_turns = 2;
  double min_turn_seconds = 0.02;  // calls per turn are chosen so a turn lasts at least this
  // While the other cores are busy (machine_load.h), wait up to this long for a quieter moment
  // before the pairs; 0: never wait.
  double quiet_wait_seconds = 3;

  // The one JSON form (run records, the evaluation queue), every field by its name above. A field
  // the JSON lacks keeps its default, so what was written before a field existed still reads.
  Json to_json() const;
  static TimingOptions from_json(const Json& json);
};

struct EvalRequest {
  const task::Task* task = nullptr;
  std::string workload;       // empty: the task's default
  std::string source;         // the candidate kernel
  std::string anchor_source;  // empty: the task's baseline
  std::string anchor_name = "baseline";
  bool measure_time = true;  // false: correctness only
  // Time the ceiling that binds the task interleaved with the anchor's turns, and score against
  // it: the % of peak then compares two figures of the same minutes (a run's baseline, timed
  // carefully). Where a platform cannot (CUDA, an evaluator), its recorded ceilings are used.
  bool time_ceiling = false;
  TimingOptions timing;
  // Library code the harness trusts (oneDNN measured side by side): skips the source rules and may
  // link what `extra_flags` names. Never set for a kernel an agent wrote.
  bool trusted = false;
  std::vector<std::string> extra_flags;
  // Set by someone else (Ctrl-C): the evaluation stops within a fraction of a second wherever a
  // runner is being waited for, kills its runners and throws EvaluationAbandoned. Null: never.
  const std::atomic<bool>* abandon = nullptr;
  // The cores this evaluation's runners are pinned to, its own while it runs (the search gives each
  // of its concurrent evaluations a set: search/evaluator.h). Empty: the platform's choice.
  std::vector<int> cores;
};

// evaluate's answer when EvalRequest::abandon was set: no verdict, nothing left running.
class EvaluationAbandoned : public std::runtime_error {
 public:
  EvaluationAbandoned() : std::runtime_error("the evaluation was abandoned") {}
};

// The harness's own work for an evaluation (the reference, the anchor, their compiles and
// start-ups) ran out of time because the machine was busy; a platform turns it into a
// MACHINE_BUSY verdict, never into the kernel's failure or the task's. The message has the
// figures (wall time, CPU time, time waited for a core).
class MachineBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Platform {
 public:
  virtual ~Platform() = default;
  virtual std::string name() const = 0;
  // Never throws for anything the candidate did: that is a verdict. Throws UserError when the task
  // itself is broken (its reference does not compile, say) and InternalError for harness failures.
  virtual Verdict evaluate(const EvalRequest& request) = 0;
};

}  // namespace accelopt::platform
