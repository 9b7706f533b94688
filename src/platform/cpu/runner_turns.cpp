#include "platform/cpu/runner_turns.h"

#include <fmt/format.h>

#include "common/error.h"

namespace accelopt::platform::cpu {
namespace {

Status outcome_status(CallOutcome outcome) {
  return outcome == CallOutcome::kTimedOut ? Status::kTimeout : Status::kRuntimeError;
}

}  // namespace

RunnerTurns::RunnerTurns(const task::Task& task, const std::vector<ReferenceCase>& cases,
                         TimedKernel candidate, TimedKernel anchor, std::string anchor_name,
                         std::chrono::milliseconds call_timeout)
    : task_(task),
      cases_(cases),
      candidate_(candidate),
      anchor_(anchor),
      anchor_name_(std::move(anchor_name)),
      call_timeout_(call_timeout) {
  candidate_.runner.pause();
  anchor_.runner.pause();
}

TurnResult RunnerTurns::run_turn(Side side, int calls) {
  bool is_candidate = side == Side::kCandidate;
  TimedKernel& kernel = is_candidate ? candidate_ : anchor_;
  size_t& case_index = is_candidate ? candidate_case_ : anchor_case_;
  // Both sides get the next seed's inputs, written by this process, just before their turn: the
  // same rotation and the same cache state for both.
  case_index = (case_index + 1) % cases_.size();
  const ReferenceCase& reference_case = cases_[case_index];
  load_case(kernel.buffers, task_, reference_case);

  kernel.runner.resume();
  CallResult call = kernel.runner.call(calls, call_timeout_ * calls);
  kernel.runner.pause();
  TurnResult result;
  result.seconds = call.seconds;
  if (task_.threads <= 1 && call.cpu_seconds >= 0) result.cpu_seconds = call.cpu_seconds;
  if (call.outcome != CallOutcome::kDone) {
    if (!is_candidate) {
      throw UserError("the anchor kernel (" + anchor_name_ +
                      ") failed while timing: " + call.message);
    }
    result.failure = TurnFailure{outcome_status(call.outcome), "while timing: " + call.message};
    return result;
  }
  // Both sides are checked after their turns: the same work between turns on both, and an
  // anchor that gives wrong answers is no yardstick.
  Verdict verdict;
  if (!is_candidate) {
    if (!check_call(task_, kernel.buffers, kernel.runner, reference_case,
                    fmt::format("seed {}", reference_case.seed), verdict)) {
      throw UserError("the anchor kernel (" + anchor_name_ +
                      ") gave wrong results while timing: " + verdict.message);
    }
    return result;
  }
  ++candidate_turns_;
  std::string when =
      fmt::format("after timed turn {} (seed {})", candidate_turns_, reference_case.seed);
  if (!check_call(task_, kernel.buffers, kernel.runner, reference_case, when, verdict)) {
    if (verdict.status == Status::kIncorrectNumerical &&
        verdict.message.find("into its") == std::string::npos) {
      verdict.message +=
          "; the kernel was correct before timing, so it may be returning results cached from "
          "earlier calls";
    }
    result.failure = TurnFailure{verdict.status, verdict.message};
  }
  return result;
}

}  // namespace accelopt::platform::cpu
