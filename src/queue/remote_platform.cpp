#include "queue/remote_platform.h"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>

#include "common/error.h"
#include "queue/evaluation_request.h"
#include "queue/queue.h"

namespace accelopt::queue {

// Counts the verdict notifications; each evaluate() sleeps until the count moves. Its thread never
// throws: a database it cannot reach is tried again, and the waiters poll meanwhile.
struct RemotePlatform::Listener {
  std::mutex mutex;
  std::condition_variable changed;
  int64_t generation = 0;
  std::jthread thread;

  explicit Listener(const std::string& url)
      : thread([this, url](std::stop_token token) {
          std::unique_ptr<Queue> queue;
          while (!token.stop_requested()) {
            try {
              if (!queue) {
                queue = Queue::open(url);
                queue->listen(kVerdictsChannel);
                wake();  // verdicts may have come while not listening
              }
              if (queue->wait(std::chrono::milliseconds(200))) wake();
            } catch (const std::exception&) {
              queue.reset();
              std::this_thread::sleep_for(std::chrono::milliseconds(500));
            }
          }
        }) {}

  void wake() {
    {
      std::lock_guard lock(mutex);
      ++generation;
    }
    changed.notify_all();
  }
  int64_t now() {
    std::lock_guard lock(mutex);
    return generation;
  }
  // Until the generation moves past `seen`, or `timeout`.
  void wait(int64_t seen, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex);
    changed.wait_for(lock, timeout, [&] { return generation != seen; });
  }
};

RemotePlatform::RemotePlatform(RemotePlatformOptions options)
    : options_(std::move(options)), queue_(Queue::open(options_.url)) {
  if (options_.listen) listener_ = std::make_unique<Listener>(options_.url);
}

RemotePlatform::~RemotePlatform() = default;

int64_t RemotePlatform::live_workers() {
  return queue_->live_workers(options_.platform);
}

platform::Verdict RemotePlatform::evaluate(const platform::EvalRequest& request) {
  if (request.trusted) {
    throw InternalError("a trusted (library) evaluation cannot go through the queue");
  }
  int64_t id = queue_->enqueue(options_.platform, request_to_json(request));
  auto deadline = std::chrono::steady_clock::now() + options_.timeout;
  auto failed = [&](const std::string& message) {
    platform::Verdict verdict;
    verdict.status = kernel::Status::kEvaluationFailed;
    verdict.message = message;
    verdict.task = request.task->name;
    verdict.workload = request.workload;
    return verdict;
  };
  while (std::chrono::steady_clock::now() < deadline) {
    int64_t seen = listener_ ? listener_->now() : 0;
    std::optional<Outcome> outcome = queue_->outcome(id);
    if (!outcome) throw InternalError(fmt::format("evaluation {} left the queue", id));
    if (outcome->state == JobState::kDone) {
      queue_->collect(id);
      return platform::Verdict::from_json(*outcome->result);
    }
    if (outcome->state == JobState::kFailed) {
      queue_->collect(id);
      return failed(fmt::format("the evaluation failed on every worker ({} attempts of job {}): {}",
                                outcome->attempts, id, outcome->error));
    }
    // Checked in slices, so that Ctrl-C is seen within a fraction of a second.
    auto slice = std::chrono::milliseconds(100);
    for (auto waited = std::chrono::milliseconds(0); waited < options_.poll; waited += slice) {
      if (request.abandon != nullptr && *request.abandon) {
        queue_->cancel(id, "the run was interrupted");
        throw platform::EvaluationAbandoned();
      }
      auto step = std::min(slice, options_.poll - waited);
      if (listener_) {
        listener_->wait(seen, step);
        if (listener_->now() != seen) break;
      } else {
        std::this_thread::sleep_for(step);
      }
    }
  }
  queue_->cancel(id, "no verdict before the run's deadline");
  return failed(fmt::format(
      "evaluation {} got no verdict in {} s: are `accelopt worker --platform {}` processes "
      "running against this database?",
      id, std::chrono::duration_cast<std::chrono::seconds>(options_.timeout).count(),
      options_.platform));
}

}  // namespace accelopt::queue
