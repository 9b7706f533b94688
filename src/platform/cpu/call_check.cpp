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

}  // namespace

std::string buffer_name(const task::Task& task, const SlotLayout& layout, size_t index) {
  size_t per_slot = layout.inputs + layout.outputs;
  if (per_slot == 0 || index >= layout.buffers()) return "buffer " + std::to_string(index);
  return tensor_name(task, index % per_slot);
}

SlotLayout single_slot(const task::Task& task) {
  SlotLayout layout;
  layout.inputs = task.inputs.size();
  layout.outputs = task.outputs.size();
  return layout;
}

void load_inputs(SharedBuffers& buffers, const SlotLayout& layout, int slot,
                 const ReferenceCase& reference_case) {
  for (size_t i = 0; i < layout.inputs; ++i) {
    size_t index = layout.input(slot, i);
    std::memcpy(buffers.data(index), reference_case.inputs[i].data(), buffers.size(index));
  }
}

void clear_outputs(SharedBuffers& buffers, const SlotLayout& layout, int slot) {
  for (size_t o = 0; o < layout.outputs; ++o) {
    size_t index = layout.output(slot, o);
    std::fill_n(buffers.floats(index), buffers.size(index) / sizeof(float),
                std::numeric_limits<float>::quiet_NaN());
  }
}

void mark_unwritten(SharedBuffers& buffers, const SlotLayout& layout, int slot) {
  for (size_t o = 0; o < layout.outputs; ++o) {
    size_t index = layout.output(slot, o);
    std::fill_n(static_cast<uint32_t*>(buffers.data(index)), buffers.size(index) / sizeof(float),
                kUnwritten);
  }
}

std::string unwritten_element(const task::Task& task, const SharedBuffers& buffers,
                              const SlotLayout& layout, int slot) {
  for (size_t o = 0; o < layout.outputs; ++o) {
    size_t index = layout.output(slot, o);
    const auto* values = static_cast<const uint32_t*>(buffers.data(index));
    size_t count = buffers.size(index) / sizeof(float);
    const uint32_t* found = std::find(values, values + count, kUnwritten);
    if (found != values + count) {
      return fmt::format("{} element {}", tensor_name(task, layout.inputs + o), found - values);
    }
  }
  return "";
}

void load_case(SharedBuffers& buffers, const task::Task& task,
               const ReferenceCase& reference_case) {
  SlotLayout layout = single_slot(task);
  load_inputs(buffers, layout, 0, reference_case);
  clear_outputs(buffers, layout, 0);
  buffers.fill_canaries();
}

bool check_inputs(const task::Task& task, const SharedBuffers& buffers, const SlotLayout& layout,
                  int slot, const ReferenceCase& reference_case, const std::string& when,
                  Verdict& verdict) {
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    size_t index = layout.input(slot, i);
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
  SlotLayout layout = single_slot(task);
  if (auto damaged = buffers.damaged_canary()) {
    verdict.status = Status::kIncorrectShape;
    verdict.message =
        fmt::format("{}: the kernel wrote outside {} (past its end or before its start)", when,
                    buffer_name(task, layout, *damaged));
    return false;
  }
  if (!check_inputs(task, buffers, layout, 0, reference_case, when, verdict)) return false;
  int threads = runner.thread_count();
  if (threads > task.threads) {
    verdict.status = Status::kRuntimeError;
    verdict.message = fmt::format(
        "{}: the kernel left {} thread(s) running after it returned (the task allows {} thread(s))",
        when, threads - 1, task.threads);
    return false;
  }
  return check_outputs_of_slot(task, buffers, layout, 0, reference_case, when, verdict);
}

bool check_outputs_of_slot(const task::Task& task, const SharedBuffers& buffers,
                           const SlotLayout& layout, int slot, const ReferenceCase& reference_case,
                           const std::string& when, Verdict& verdict) {
  std::vector<const float*> outputs;
  for (size_t o = 0; o < task.outputs.size(); ++o) {
    outputs.push_back(buffers.floats(layout.output(slot, o)));
  }
  const task::InputSet* set =
      reference_case.set.empty() ? nullptr : &task.input_set(reference_case.set);
  return record_output_check(check_outputs(task, set, outputs, reference_case.outputs), when,
                             verdict);
}

}  // namespace accelopt::platform::cpu
