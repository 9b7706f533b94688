#include "platform/cpu/runner_turns.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"
#include "platform/cpu/inputs.h"

namespace accelopt::platform::cpu {
namespace {

Status outcome_status(CallOutcome outcome) {
  return outcome == CallOutcome::kTimedOut ? Status::kTimeout : Status::kRuntimeError;
}

}  // namespace

std::chrono::milliseconds turn_deadline(int calls, std::optional<double> seconds_per_call,
                                        std::chrono::milliseconds call_timeout) {
  std::chrono::milliseconds most = call_timeout * std::max(calls, 1);
  if (!seconds_per_call) return most;
  auto expected = std::chrono::duration<double>(kTurnDeadlineFactor * calls * *seconds_per_call);
  auto generous = std::chrono::ceil<std::chrono::milliseconds>(expected);
  return std::clamp(generous, call_timeout, most);
}

RunnerTurns::RunnerTurns(const task::Task& task, const std::vector<ReferenceCase>& cases,
                         SlotLayout layout, TimedKernel candidate, TimedKernel anchor,
                         std::string anchor_name, std::chrono::milliseconds call_timeout)
    : task_(task),
      cases_(cases),
      layout_(layout),
      candidate_(candidate),
      anchor_(anchor),
      anchor_name_(std::move(anchor_name)),
      call_timeout_(call_timeout) {
  candidate_.runner.pause();
  anchor_.runner.pause();
}

std::vector<const ReferenceCase*> RunnerTurns::load_turn(SharedBuffers& buffers, int turn) const {
  // The task's own distributions only (the first task.seeds cases): edge-case inputs such as
  // denormals would change the speed being measured.
  size_t pool = std::min(cases_.size(), static_cast<size_t>(task_.seeds));
  std::vector<const ReferenceCase*> slot_cases;
  for (int slot = 0; slot < layout_.input_slots; ++slot) {
    slot_cases.push_back(&cases_[static_cast<size_t>(turn + slot) % pool]);
    load_inputs(buffers, layout_, slot, *slot_cases.back());
  }
  for (int slot = 0; slot < layout_.output_slots; ++slot) clear_outputs(buffers, layout_, slot);
  buffers.fill_canaries();
  return slot_cases;
}

bool RunnerTurns::check_turn(const TimedKernel& kernel,
                             const std::vector<const ReferenceCase*>& slot_cases, uint64_t seed,
                             int calls, int turn, Verdict& verdict) const {
  for (int slot = 0; slot < layout_.input_slots; ++slot) {
    if (!check_inputs(task_, kernel.buffers, layout_, slot, *slot_cases[static_cast<size_t>(slot)],
                      fmt::format("timed turn {}", turn), verdict)) {
      return false;
    }
  }
  std::vector<int> last_call(static_cast<size_t>(layout_.output_slots), -1);
  std::vector<int> last_input(static_cast<size_t>(layout_.output_slots), 0);
  for (int call = 0; call < calls; ++call) {
    CallSlots slots = turn_slots(seed, static_cast<uint64_t>(call), layout_);
    last_call[static_cast<size_t>(slots.output)] = call;
    last_input[static_cast<size_t>(slots.output)] = slots.input;
  }
  for (int output = 0; output < layout_.output_slots; ++output) {
    int call = last_call[static_cast<size_t>(output)];
    if (call < 0) continue;  // no call wrote there this turn
    int input = last_input[static_cast<size_t>(output)];
    const ReferenceCase& reference_case = *slot_cases[static_cast<size_t>(input)];
    std::string when = fmt::format("call {} of {} in timed turn {} ({})", call + 1, calls, turn,
                                   reference_case.label);
    if (!check_call(task_, kernel.buffers, kernel.runner, layout_, {input, output}, reference_case,
                    when, verdict)) {
      return false;
    }
  }
  return true;
}

TurnResult RunnerTurns::run_turn(Side side, int calls) {
  bool is_candidate = side == Side::kCandidate;
  TimedKernel& kernel = is_candidate ? candidate_ : anchor_;
  int turn = ++(is_candidate ? candidate_turns_ : anchor_turns_);
  if (turn_seeds_.size() < static_cast<size_t>(turn)) turn_seeds_.push_back(secret_seed());
  uint64_t seed = turn_seeds_[static_cast<size_t>(turn - 1)];
  // Written by this process just before the turn, on both sides alike.
  std::vector<const ReferenceCase*> slot_cases = load_turn(kernel.buffers, turn);

  std::optional<double>& per_call = is_candidate ? candidate_per_call_ : anchor_per_call_;
  kernel.runner.resume();
  CallResult call = kernel.runner.turn(calls, seed, turn_deadline(calls, per_call, call_timeout_));
  kernel.runner.pause();
  per_call = call.seconds / std::max(calls, 1);
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
  if (check_turn(kernel, slot_cases, seed, calls, turn, verdict)) return result;
  if (!is_candidate) {
    throw UserError("the anchor kernel (" + anchor_name_ +
                    ") gave wrong results while timing: " + verdict.message);
  }
  if (verdict.status == Status::kIncorrectNumerical &&
      verdict.message.find("into its") == std::string::npos) {
    verdict.message +=
        "; the kernel was correct on every case before timing, so it may be skipping calls or "
        "returning results cached from earlier calls";
  }
  result.failure = TurnFailure{verdict.status, verdict.message};
  return result;
}

}  // namespace accelopt::platform::cpu
