#include "platform/cpu/call_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

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

void load_inputs(SharedBuffers& buffers, const task::Task& task, const SlotLayout& layout, int slot,
                 const ReferenceCase& reference_case) {
  for (size_t i = 0; i < layout.inputs; ++i) {
    size_t index = layout.input(slot, i);
    const std::vector<float>& values = reference_case.inputs[i];
    task::encode_values(task.inputs[i].dtype, values.data(), values.size(), buffers.data(index));
  }
}

void clear_outputs(SharedBuffers& buffers, const task::Task& task, const SlotLayout& layout,
                   int slot) {
  for (size_t o = 0; o < layout.outputs; ++o) {
    size_t index = layout.output(slot, o);
    task::DType dtype = task.outputs[o].dtype;
    if (task::is_integer(dtype)) {
      std::memset(buffers.data(index), 0xA5, buffers.size(index));
      continue;
    }
    std::vector<float> nan(buffers.size(index) / task::dtype_size(dtype),
                           std::numeric_limits<float>::quiet_NaN());
    task::encode_values(dtype, nan.data(), nan.size(), buffers.data(index));
  }
}

namespace {

// Fills or finds `marker`, `width` bytes wide, in `count` elements at `data`.
void fill_marker(void* data, size_t count, size_t width, uint32_t marker) {
  auto* bytes = static_cast<unsigned char*>(data);
  for (size_t i = 0; i < count; ++i) std::memcpy(bytes + i * width, &marker, width);
}

std::optional<size_t> find_marker(const void* data, size_t count, size_t width, uint32_t marker) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < count; ++i) {
    if (std::memcmp(bytes + i * width, &marker, width) == 0) return i;
  }
  return std::nullopt;
}

}  // namespace

void mark_unwritten(SharedBuffers& buffers, const task::Task& task, const SlotLayout& layout,
                    int slot) {
  for (size_t o = 0; o < layout.outputs; ++o) {
    size_t index = layout.output(slot, o);
    task::DType dtype = task.outputs[o].dtype;
    size_t width = task::dtype_size(dtype);
    if (std::optional<uint32_t> marker = task::unwritten_marker(dtype)) {
      fill_marker(buffers.data(index), buffers.size(index) / width, width, *marker);
    } else {
      std::memset(buffers.data(index), 0xA5, buffers.size(index));
    }
  }
}

std::string unwritten_element(const task::Task& task, const SharedBuffers& buffers,
                              const SlotLayout& layout, int slot) {
  for (size_t o = 0; o < layout.outputs; ++o) {
    size_t index = layout.output(slot, o);
    task::DType dtype = task.outputs[o].dtype;
    std::optional<uint32_t> marker = task::unwritten_marker(dtype);
    if (!marker) continue;
    size_t width = task::dtype_size(dtype);
    if (auto found =
            find_marker(buffers.data(index), buffers.size(index) / width, width, *marker)) {
      return fmt::format("{} element {}", tensor_name(task, layout.inputs + o), *found);
    }
  }
  return "";
}

void load_case(SharedBuffers& buffers, const task::Task& task,
               const ReferenceCase& reference_case) {
  SlotLayout layout = single_slot(task);
  load_inputs(buffers, task, layout, 0, reference_case);
  clear_outputs(buffers, task, layout, 0);
  buffers.fill_canaries();
}

bool check_inputs(const task::Task& task, const SharedBuffers& buffers, const SlotLayout& layout,
                  int slot, const ReferenceCase& reference_case, const std::string& when,
                  Verdict& verdict) {
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    size_t index = layout.input(slot, i);
    const std::vector<float>& values = reference_case.inputs[i];
    const void* expected = values.data();
    std::vector<unsigned char> loaded;  // the bytes in the input's dtype, where not float32
    if (task.inputs[i].dtype != task::DType::kFloat32) {
      loaded.resize(buffers.size(index));
      task::encode_values(task.inputs[i].dtype, values.data(), values.size(), loaded.data());
      expected = loaded.data();
    }
    if (std::memcmp(buffers.data(index), expected, buffers.size(index)) != 0) {
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
  // Read in each output's dtype, compared as float64 (checker.h).
  std::vector<std::vector<float>> values;
  values.reserve(task.outputs.size());
  std::vector<const float*> outputs;
  for (size_t o = 0; o < task.outputs.size(); ++o) {
    size_t index = layout.output(slot, o);
    values.push_back(
        task::decode_values(task.outputs[o].dtype, buffers.data(index), buffers.size(index)));
    outputs.push_back(values.back().data());
  }
  const task::InputSet* set =
      reference_case.set.empty() ? nullptr : &task.input_set(reference_case.set);
  return record_output_check(check_outputs(task, set, outputs, reference_case.outputs), when,
                             verdict);
}

}  // namespace accelopt::platform::cpu
