#include "queue/remote_platform.h"

#include <fmt/format.h>

#include <thread>

#include "common/error.h"
#include "queue/evaluation_request.h"
#include "queue/queue.h"

namespace accelopt::queue {

RemotePlatform::RemotePlatform(RemotePlatformOptions options)
    : options_(std::move(options)), queue_(Queue::open(options_.url)) {}

RemotePlatform::~RemotePlatform() = default;

platform::Verdict RemotePlatform::evaluate(const platform::EvalRequest& request) {
  if (request.trusted) {
    throw InternalError("a trusted (library) evaluation cannot go through the queue");
  }
  int64_t id = queue_->enqueue(options_.platform, request_to_json(request));
  auto deadline = std::chrono::steady_clock::now() + options_.timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::optional<Outcome> outcome = queue_->outcome(id);
    if (!outcome) throw InternalError(fmt::format("evaluation {} left the queue", id));
    if (outcome->state == JobState::kDone) return platform::Verdict::from_json(*outcome->result);
    if (outcome->state == JobState::kFailed) {
      throw InternalError(fmt::format("evaluation {} failed on all {} attempts; the last: {}", id,
                                      outcome->attempts, outcome->error));
    }
    std::this_thread::sleep_for(options_.poll);
  }
  throw InternalError(fmt::format(
      "evaluation {} got no verdict in {} s: are `accelopt worker --platform {}` processes "
      "running against this database?",
      id, std::chrono::duration_cast<std::chrono::seconds>(options_.timeout).count(),
      options_.platform));
}

}  // namespace accelopt::queue
