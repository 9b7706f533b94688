// An evaluation as it travels through the queue: platform::EvalRequest as JSON, with the task
// named by its directory (workers see the same checkout or shared file system as the search).
//
//   {"task_directory": "/…/bench/cpu/axpy", "workload": "small", "source": "…",
//    "anchor_source": "", "anchor_name": "baseline", "measure_time": true,
//    "timing": {"target_half_width": 0.02, "budget_seconds": 20, "min_pairs": 10, …}}
//
// (the timing in TimingOptions' one JSON form, platform.h)
//
// `trusted` and `extra_flags` never travel: a queued kernel is always checked as agent-written
// code.
#pragma once

#include <memory>

#include "common/error.h"
#include "common/json.h"
#include "platform/platform.h"

namespace accelopt::queue {

Json request_to_json(const platform::EvalRequest& request);

// A request no worker can evaluate (not the shape above): the job fails at once, not again.
class MalformedRequest : public UserError {
 public:
  explicit MalformedRequest(const std::string& message) : UserError(message) {}
};

// The request read back, with the task it points to loaded (and owned). Throws MalformedRequest
// for a malformed request, UserError for a task that does not load here (another host may see
// it: the job goes to another worker).
struct LoadedRequest {
  std::shared_ptr<const task::Task> task;
  platform::EvalRequest request;
};
LoadedRequest request_from_json(const Json& json);

}  // namespace accelopt::queue
