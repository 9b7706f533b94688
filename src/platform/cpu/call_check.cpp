#include "platform/cpu/call_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

#include "common/error.h"
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

std::string wrote_outside(const task::Task& task, const SlotLayout& layout, size_t damaged,
                          const std::string& when) {
  return fmt::format("{}: the kernel wrote outside {} (past its end or before its start)", when,
                     buffer_name(task, layout, damaged));
}

void record_input_write(const task::Task& task, const SharedBuffers& buffers,
                        const SlotLayout& layout, size_t buffer, size_t first, size_t count,
                        const std::string& when, Verdict& verdict) {
  if (auto damaged = buffers.damaged_canary(first, count)) {
    verdict.status = Status::kIncorrectShape;
    verdict.message = wrote_outside(task, layout, *damaged, when);
    return;
  }
  size_t per_slot = layout.inputs + layout.outputs;
  std::string whose =
      per_slot > 0 && buffer >= per_slot ? fmt::format(" (in slot {})", buffer / per_slot) : "";
  std::string name =
      per_slot > 0 ? tensor_name(task, buffer % per_slot) : "buffer " + std::to_string(buffer);
  verdict.status = Status::kIncorrectNumerical;
  verdict.message = when + ": the kernel wrote into its " + name + whose + "; inputs are read-only";
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
    const task::TensorValues& values = reference_case.inputs[i];
    if (values.bytes().size() != buffers.size(index)) {
      throw InternalError("load_inputs: input " + task.inputs[i].name + " has the wrong size");
    }
    std::memcpy(buffers.data(index), values.bytes().data(), values.bytes().size());
  }
}

void clear_outputs(SharedBuffers& buffers, const task::Task& task, const SlotLayout& layout,
                   int slot) {
  for (size_t o = 0; o < layout.outputs; ++o) {
    size_t index = layout.output(slot, o);
    task::clear_to_nan(task.outputs[o].dtype, buffers.data(index), buffers.size(index));
  }
}

namespace {

// Fills `count` elements at `data` (page-aligned buffers) with `marker`, a Word: the first 16 KB
// in a typed loop, the rest copied from them, since memcpy writes whole lines without reading
// them from memory first and the loop's stores do not (a CPU workload's output, 58.7 MB not in
// the caches: 4.5 ms in one loop, 2.0 ms so).
template <typename Word>
void fill_words(void* data, size_t count, uint32_t marker) {
  constexpr size_t kFirstBytes = size_t{16} * 1024;
  auto* words = static_cast<Word*>(data);
  size_t first = std::min(count, kFirstBytes / sizeof(Word));
  std::fill_n(words, first, static_cast<Word>(marker));
  for (size_t done = first; done < count; done += first) {
    std::memcpy(words + done, words, std::min(first, count - done) * sizeof(Word));
  }
}

void fill_marker(void* data, size_t count, size_t width, uint32_t marker) {
  switch (width) {
    case 4:
      return fill_words<uint32_t>(data, count, marker);
    case 2:
      return fill_words<uint16_t>(data, count, marker);
    case 1:
      return fill_words<uint8_t>(data, count, marker);
  }
  throw InternalError("an unwritten marker " + std::to_string(width) + " bytes wide");
}

// The element at `at` as an unsigned integer of its `width`: copies of a fixed size, which compile
// to loads (one memcpy call per element of a variable size cost more than the sampled check).
uint32_t element_bits(const unsigned char* at, size_t width) {
  switch (width) {
    case 4: {
      uint32_t bits = 0;
      std::memcpy(&bits, at, 4);
      return bits;
    }
    case 2: {
      uint16_t bits = 0;
      std::memcpy(&bits, at, 2);
      return bits;
    }
    case 1:
      return *at;
  }
  throw InternalError("an unwritten marker " + std::to_string(width) + " bytes wide");
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
                              const SlotLayout& layout, int slot,
                              const std::vector<std::vector<size_t>>& places) {
  for (size_t o = 0; o < layout.outputs; ++o) {
    task::DType dtype = task.outputs[o].dtype;
    std::optional<uint32_t> marker = task::unwritten_marker(dtype);
    if (!marker) continue;
    size_t width = task::dtype_size(dtype);
    const auto* bytes = static_cast<const unsigned char*>(buffers.data(layout.output(slot, o)));
    for (size_t place : places[o]) {
      if (element_bits(bytes + place * width, width) == *marker) {
        return fmt::format("{} element {}", tensor_name(task, layout.inputs + o), place);
      }
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
    const task::TensorValues& values = reference_case.inputs[i];
    if (std::memcmp(buffers.data(index), values.bytes().data(), buffers.size(index)) != 0) {
      verdict.status = Status::kIncorrectNumerical;
      verdict.message = fmt::format("{}: the kernel wrote into its {}; inputs are read-only", when,
                                    tensor_name(task, i));
      return false;
    }
  }
  return true;
}

void load_cases_as_turn(SharedBuffers& buffers, const task::Task& task, const SlotLayout& layout,
                        const std::vector<const ReferenceCase*>& cases) {
  if (cases.size() > static_cast<size_t>(std::max(layout.slots, 1))) {
    throw InternalError("load_cases_as_turn: more cases than slots");
  }
  for (size_t slot = 0; slot < cases.size(); ++slot) {
    load_inputs(buffers, task, layout, static_cast<int>(slot), *cases[slot]);
    mark_unwritten(buffers, task, layout, static_cast<int>(slot));
  }
  buffers.fill_canaries(0, cases.size() * (layout.inputs + layout.outputs));
}

bool check_cases_of_turn(const task::Task& task, const SharedBuffers& buffers, const Runner& runner,
                         const SlotLayout& layout, const std::vector<const ReferenceCase*>& cases,
                         Verdict& verdict, double& compare_seconds) {
  size_t per_slot = layout.inputs + layout.outputs;
  if (auto damaged = buffers.damaged_canary(0, cases.size() * per_slot)) {
    verdict.status = Status::kIncorrectShape;
    verdict.message = wrote_outside(task, layout, *damaged, cases[*damaged / per_slot]->label);
    return false;
  }
  int threads = runner.thread_count();
  if (threads > task.threads) {
    verdict.status = Status::kRuntimeError;
    verdict.message = fmt::format(
        "{}: the kernel left {} thread(s) running after it returned (the task allows {} thread(s))",
        cases.back()->label, threads - 1, task.threads);
    return false;
  }
  for (size_t slot = 0; slot < cases.size(); ++slot) {
    const ReferenceCase& reference_case = *cases[slot];
    auto compared = std::chrono::steady_clock::now();
    // Read-only inputs cannot change (a write ends the turn: CallOutcome::kWroteInput); writable
    // ones are compared with what was loaded.
    bool correct = (runner.inputs_read_only() ||
                    check_inputs(task, buffers, layout, static_cast<int>(slot), reference_case,
                                 reference_case.label, verdict)) &&
                   check_outputs_of_slot(task, buffers, layout, static_cast<int>(slot),
                                         reference_case, reference_case.label, verdict);
    compare_seconds = std::max(
        compare_seconds,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - compared).count());
    if (!correct) return false;
    ++verdict.correctness.seeds_checked;
  }
  return true;
}

bool check_outputs_of_slot(const task::Task& task, const SharedBuffers& buffers,
                           const SlotLayout& layout, int slot, const ReferenceCase& reference_case,
                           const std::string& when, Verdict& verdict, const task::InputSet* set) {
  // Read in each output's dtype, compared as float64 (checker.h); float32 outputs where they are.
  std::vector<std::vector<float>> values;
  values.reserve(task.outputs.size());
  std::vector<const float*> outputs;
  for (size_t o = 0; o < task.outputs.size(); ++o) {
    size_t index = layout.output(slot, o);
    if (task.outputs[o].dtype == task::DType::kFloat32) {
      outputs.push_back(static_cast<const float*>(buffers.data(index)));
      continue;
    }
    values.push_back(
        task::decode_values(task.outputs[o].dtype, buffers.data(index), buffers.size(index)));
    outputs.push_back(values.back().data());
  }
  if (set == nullptr && !reference_case.set.empty()) set = &task.input_set(reference_case.set);
  return record_output_check(check_outputs(task, set, outputs, reference_case.outputs), when,
                             verdict);
}

}  // namespace accelopt::platform::cpu
