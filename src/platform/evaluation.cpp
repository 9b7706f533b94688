#include "platform/evaluation.h"

#include <utility>

#include "common/hash.h"

namespace accelopt::platform {

VerdictStart::VerdictStart(const EvalRequest& request, const task::Workload& workload) {
  verdict.task = request.task->name;
  verdict.workload = workload.name;
  verdict.source_hash = sha256_hex(request.source);
  verdict.correctness.tolerance = request.task->rel_l2_tolerance;
}

Verdict VerdictStart::finish(Status status, std::string message) {
  verdict.status = status;
  if (!message.empty()) verdict.message = std::move(message);
  verdict.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return verdict;
}

std::vector<size_t> buffer_sizes(const task::Task& task, const task::Workload& workload) {
  std::vector<size_t> sizes;
  for (const auto* list : {&task.inputs, &task.outputs}) {
    for (const task::TensorSpec& tensor : *list) {
      sizes.push_back(static_cast<size_t>(task.element_count(tensor, workload)) *
                      task::dtype_size(tensor.dtype));
    }
  }
  return sizes;
}

}  // namespace accelopt::platform
