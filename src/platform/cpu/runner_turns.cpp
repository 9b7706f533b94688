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

// SplitMix64: the next draw of `state`.
uint64_t next_draw(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// True with probability `p`, from getrandom(2): nobody can know before.
bool secret_chance(double p) {
  return static_cast<double>(secret_seed() >> 11) * 0x1p-53 < p;
}

constexpr size_t kMixBlock = 256;  // elements: 1 KiB, long enough to copy at memory speed

}  // namespace

std::chrono::milliseconds turn_deadline(int calls, std::optional<double> seconds_per_call,
                                        std::chrono::milliseconds call_timeout) {
  std::chrono::milliseconds most = call_timeout * std::max(calls, 1);
  if (!seconds_per_call) return most;
  auto expected = std::chrono::duration<double>(kTurnDeadlineFactor * calls * *seconds_per_call);
  auto generous = std::chrono::ceil<std::chrono::milliseconds>(expected);
  return std::clamp(generous, call_timeout, most);
}

void mix_inputs(const std::vector<ReferenceCase>& pool, uint64_t seed, ReferenceCase& into) {
  if (pool.empty()) throw InternalError("mix_inputs: no cases to mix");
  size_t tensors = pool.front().inputs.size();
  into.inputs.resize(tensors);
  uint64_t state = seed;
  std::vector<size_t> rotation(pool.size());
  for (size_t t = 0; t < tensors; ++t) {
    size_t n = pool.front().inputs[t].size();
    std::vector<float>& out = into.inputs[t];
    out.resize(n);
    if (n == 0) continue;
    for (size_t& r : rotation) r = next_draw(state) % n;
    for (size_t start = 0; start < n; start += kMixBlock) {
      size_t k = next_draw(state) % pool.size();
      const std::vector<float>& source = pool[k].inputs[t];
      size_t length = std::min(kMixBlock, n - start);
      size_t from = (start + rotation[k]) % n;
      size_t first = std::min(length, n - from);  // up to the end, then from the start
      std::copy_n(source.begin() + static_cast<std::ptrdiff_t>(from), first,
                  out.begin() + static_cast<std::ptrdiff_t>(start));
      std::copy_n(source.begin(), length - first,
                  out.begin() + static_cast<std::ptrdiff_t>(start + first));
    }
  }
}

RunnerTurns::RunnerTurns(const task::Task& task, TurnReference reference, SlotLayout layout,
                         TimedKernel candidate, TimedKernel anchor, std::string anchor_name,
                         std::chrono::milliseconds call_timeout, std::vector<int> cores)
    : task_(task),
      reference_(std::move(reference)),
      layout_(layout),
      candidate_(candidate),
      anchor_(anchor),
      anchor_name_(std::move(anchor_name)),
      call_timeout_(call_timeout),
      cores_(std::move(cores)) {
  candidate_.runner.pause();
  anchor_.runner.pause();
  cases_.resize(static_cast<size_t>(layout_.input_slots));
}

RunnerTurns::TurnPlan& RunnerTurns::plan(int turn) {
  auto found = plans_.find(turn);
  if (found != plans_.end()) return found->second;
  TurnPlan& plan = plans_[turn];
  plan.schedule_seed = secret_seed();
  plan.inputs_seed = secret_seed();
  // The reference may take about as long as the anchor's turns of a pair; where it costs less
  // (small workloads), every turn is checked.
  double cost = reference_.seconds_per_case * std::min(layout_.input_slots, layout_.output_slots);
  double share = 1;
  if (anchor_turn_seconds_ && cost > 0) share = 2 * *anchor_turn_seconds_ / cost;
  plan.checked = secret_chance(std::clamp(share, kLeastCheckedShare, 1.0));
  return plan;
}

void RunnerTurns::load_turn(SharedBuffers& buffers, const TurnPlan& plan) {
  for (int slot = 0; slot < layout_.input_slots; ++slot) {
    ReferenceCase& slot_case = cases_[static_cast<size_t>(slot)];
    mix_inputs(reference_.pool,
               plan.inputs_seed + static_cast<uint64_t>(slot) * 0x632BE59BD9B4E019ull, slot_case);
    slot_case.outputs.clear();
    slot_case.label = fmt::format("fresh inputs {} of the turn", slot + 1);
    load_inputs(buffers, layout_, slot, slot_case);
  }
  for (int slot = 0; slot < layout_.output_slots; ++slot) clear_outputs(buffers, layout_, slot);
  buffers.fill_canaries();
}

bool RunnerTurns::check_turn(const TimedKernel& kernel, TurnPlan& plan, int calls, int turn,
                             Verdict& verdict) {
  for (int slot = 0; slot < layout_.input_slots; ++slot) {
    if (!check_inputs(task_, kernel.buffers, layout_, slot, cases_[static_cast<size_t>(slot)],
                      fmt::format("timed turn {}", turn), verdict)) {
      return false;
    }
  }
  if (!plan.checked) return true;
  std::vector<int> last_call(static_cast<size_t>(layout_.output_slots), -1);
  std::vector<int> last_input(static_cast<size_t>(layout_.output_slots), 0);
  for (int call = 0; call < calls; ++call) {
    CallSlots slots = turn_slots(plan.schedule_seed, static_cast<uint64_t>(call), layout_);
    last_call[static_cast<size_t>(slots.output)] = call;
    last_input[static_cast<size_t>(slots.output)] = slots.input;
  }
  // The reference's answers for the input slots those calls read, once for both sides (whose
  // turns may differ in calls while calibrating, and so in the slots read last).
  if (plan.outputs.empty()) ++turns_checked_;
  plan.outputs.resize(static_cast<size_t>(layout_.input_slots));
  for (int output = 0; output < layout_.output_slots; ++output) {
    if (last_call[static_cast<size_t>(output)] < 0) continue;
    auto input = static_cast<size_t>(last_input[static_cast<size_t>(output)]);
    if (!plan.outputs[input].empty()) continue;
    reference_.outputs(cases_[input]);
    plan.outputs[input] = cases_[input].outputs;
  }
  for (int output = 0; output < layout_.output_slots; ++output) {
    int call = last_call[static_cast<size_t>(output)];
    if (call < 0) continue;  // no call wrote there this turn
    int input = last_input[static_cast<size_t>(output)];
    ReferenceCase& reference_case = cases_[static_cast<size_t>(input)];
    reference_case.outputs = plan.outputs[static_cast<size_t>(input)];
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
  TurnPlan& turn_plan = plan(turn);
  uint64_t seed = turn_plan.schedule_seed;
  // Written by this process just before the turn, on both sides alike.
  load_turn(kernel.buffers, turn_plan);

  std::optional<double>& per_call = is_candidate ? candidate_per_call_ : anchor_per_call_;
  kernel.runner.resume();
  std::optional<CpuTicks> ticks_before = read_cpu_ticks(cores_);
  CallResult call = kernel.runner.turn(calls, seed, turn_deadline(calls, per_call, call_timeout_));
  std::optional<CpuTicks> ticks_after = read_cpu_ticks(cores_);
  kernel.runner.pause();
  per_call = call.seconds / std::max(calls, 1);
  if (!is_candidate) anchor_turn_seconds_ = call.seconds;
  TurnResult result;
  result.seconds = call.seconds;
  if (task_.threads <= 1 && call.cpu_seconds >= 0) result.cpu_seconds = call.cpu_seconds;
  // Off the CPU: what the wall time has beyond running and waiting for a core. With many threads
  // the wait is not known: the threads' idle share of their wall time.
  if (call.cpu_seconds >= 0 && task_.threads <= 1 && call.waiting_seconds >= 0) {
    result.off_cpu_seconds = std::max(0.0, call.seconds - call.cpu_seconds - call.waiting_seconds);
  } else if (call.cpu_seconds >= 0 && task_.threads > 1) {
    result.off_cpu_seconds = std::max(0.0, call.seconds - call.cpu_seconds / task_.threads);
  }
  if (ticks_before && ticks_after) result.ticks = *ticks_after - *ticks_before;
  result.involuntary_switches = std::max<int64_t>(call.involuntary_switches, 0);
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
  bool correct = check_turn(kernel, turn_plan, calls, turn, verdict);
  if (++turn_plan.sides_done == 2) plans_.erase(turn);
  if (correct) return result;
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
