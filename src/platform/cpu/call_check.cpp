#include "platform/cpu/call_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "platform/cpu/checker.h"

namespace accelopt::platform::cpu {
namespace {

std::string tensor_name(const task::Task& task, size_t index) {
  return index < task.inputs.size()
             ? "input '" + task.inputs[index].name + "'"
             : "output '" + task.outputs[index - task.inputs.size()].name + "'";
}

}  // namespace

void load_case(SharedBuffers& buffers, const task::Task& task,
               const ReferenceCase& reference_case) {
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    std::memcpy(buffers.data(i), reference_case.inputs[i].data(), buffers.size(i));
  }
  for (size_t i = task.inputs.size(); i < buffers.count(); ++i) {
    std::fill_n(buffers.floats(i), buffers.size(i) / sizeof(float),
                std::numeric_limits<float>::quiet_NaN());
  }
  buffers.fill_canaries();
}

bool check_call(const task::Task& task, const SharedBuffers& buffers, const Runner& runner,
                const ReferenceCase& reference_case, const std::string& when, Verdict& verdict) {
  if (auto damaged = buffers.damaged_canary()) {
    verdict.status = Status::kIncorrectShape;
    verdict.message =
        fmt::format("{}: the kernel wrote outside {} (past its end or before its start)", when,
                    tensor_name(task, *damaged));
    return false;
  }
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    if (std::memcmp(buffers.data(i), reference_case.inputs[i].data(), buffers.size(i)) != 0) {
      verdict.status = Status::kIncorrectNumerical;
      verdict.message = fmt::format("{}: the kernel wrote into its {}; inputs are read-only", when,
                                    tensor_name(task, i));
      return false;
    }
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
    outputs.push_back(buffers.floats(task.inputs.size() + o));
  }
  const task::InputSet* set =
      reference_case.set.empty() ? nullptr : &task.input_set(reference_case.set);
  OutputCheck check = check_outputs(task, set, outputs, reference_case.outputs);
  Correctness& c = verdict.correctness;
  c.rel_l2_error = std::max(c.rel_l2_error, check.rel_l2_error);
  c.max_abs_error = std::max(c.max_abs_error, check.max_abs_error);
  c.max_rel_error = std::max(c.max_rel_error, check.max_rel_error);
  if (!check.ok) {
    verdict.status = Status::kIncorrectNumerical;
    verdict.message = when + ": " + check.message;
    return false;
  }
  return true;
}

}  // namespace accelopt::platform::cpu
