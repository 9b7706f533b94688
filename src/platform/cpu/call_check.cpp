#include "platform/cpu/call_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "platform/checker.h"

namespace accelopt::platform::cpu {
namespace {

std::string tensor_name(const task::Task& task, size_t index) {
  return index < task.inputs.size()
             ? "input '" + task.inputs[index].name + "'"
             : "output '" + task.outputs[index - task.inputs.size()].name + "'";
}

// Names buffer `index` of `layout` by its tensor (slots are the harness's business).
std::string buffer_name(const task::Task& task, const SlotLayout& layout, size_t index) {
  for (int slot = 0; slot < layout.input_slots; ++slot) {
    for (size_t i = 0; i < layout.inputs; ++i) {
      if (layout.input(slot, i) == index) return tensor_name(task, i);
    }
  }
  for (int slot = 0; slot < layout.output_slots; ++slot) {
    for (size_t o = 0; o < layout.outputs; ++o) {
      if (layout.output(slot, o) == index) return tensor_name(task, layout.inputs + o);
    }
  }
  return "buffer " + std::to_string(index);
}

}  // namespace

SlotLayout single_slot(const task::Task& task) {
  SlotLayout layout;
  layout.inputs = task.inputs.size();
  layout.outputs = task.outputs.size();
  return layout;
}

void load_inputs(SharedBuffers& buffers, const SlotLayout& layout, int input_slot,
                 const ReferenceCase& reference_case) {
  for (size_t i = 0; i < layout.inputs; ++i) {
    size_t index = layout.input(input_slot, i);
    std::memcpy(buffers.data(index), reference_case.inputs[i].data(), buffers.size(index));
  }
}

void clear_outputs(SharedBuffers& buffers, const SlotLayout& layout, int output_slot) {
  for (size_t o = 0; o < layout.outputs; ++o) {
    size_t index = layout.output(output_slot, o);
    std::fill_n(buffers.floats(index), buffers.size(index) / sizeof(float),
                std::numeric_limits<float>::quiet_NaN());
  }
}

void load_case(SharedBuffers& buffers, const task::Task& task,
               const ReferenceCase& reference_case) {
  SlotLayout layout = single_slot(task);
  load_inputs(buffers, layout, 0, reference_case);
  clear_outputs(buffers, layout, 0);
  buffers.fill_canaries();
}

bool check_inputs(const task::Task& task, const SharedBuffers& buffers, const SlotLayout& layout,
                  int input_slot, const ReferenceCase& reference_case, const std::string& when,
                  Verdict& verdict) {
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    size_t index = layout.input(input_slot, i);
    if (std::memcmp(buffers.data(index), reference_case.inputs[i].data(), buffers.size(index)) !=
        0) {
      verdict.status = Status::kIncorrectNumerical;
      verdict.message = fmt::format("{}: the kernel wrote into its {}; inputs are read-only", when,
                                    tensor_name(task, i));
      return false;
    }
  }
  return true;
}

bool check_call(const task::Task& task, const SharedBuffers& buffers, const Runner& runner,
                const ReferenceCase& reference_case, const std::string& when, Verdict& verdict) {
  return check_call(task, buffers, runner, single_slot(task), {}, reference_case, when, verdict);
}

bool check_call(const task::Task& task, const SharedBuffers& buffers, const Runner& runner,
                const SlotLayout& layout, CallSlots slots, const ReferenceCase& reference_case,
                const std::string& when, Verdict& verdict) {
  if (auto damaged = buffers.damaged_canary()) {
    verdict.status = Status::kIncorrectShape;
    verdict.message =
        fmt::format("{}: the kernel wrote outside {} (past its end or before its start)", when,
                    buffer_name(task, layout, *damaged));
    return false;
  }
  if (!check_inputs(task, buffers, layout, slots.input, reference_case, when, verdict)) {
    return false;
  }
  int threads = runner.thread_count();
  if (threads > task.threads) {
    verdict.status = Status::kRuntimeError;
    verdict.message = fmt::format(
        "{}: the kernel left {} thread(s) running after it returned (the task allows {} thread(s))",
        when, threads - 1, task.threads);
    return false;
  }
  std::vector<const float*> outputs;
  for (size_t o = 0; o < task.outputs.size(); ++o) {
    outputs.push_back(buffers.floats(layout.output(slots.output, o)));
  }
  const task::InputSet* set =
      reference_case.set.empty() ? nullptr : &task.input_set(reference_case.set);
  return record_output_check(check_outputs(task, set, outputs, reference_case.outputs), when,
                             verdict);
}

}  // namespace accelopt::platform::cpu
