// A platform whose evaluations happen elsewhere: `evaluate` enqueues the request in the shared
// PostgreSQL queue and waits for a worker's verdict (`accelopt worker` on an accelerator host). The
// search sees an ordinary platform, so it needs no change to run on remote workers.
//
// The wait sleeps until a worker's NOTIFY says some verdict is in (a listener thread on its own
// connection), with polling every `poll` as the fallback. A job that failed on every attempt is a
// verdict, EVALUATION_FAILED with each worker's reason: the candidate fails, not the run. Ctrl-C
// (EvalRequest::abandon) cancels the job. A run killed outright leaves its job in the queue; the
// resumed run's identical request adopts it (Queue::enqueue) instead of evaluating it twice.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "platform/platform.h"

namespace accelopt::queue {

class Queue;

struct RemotePlatformOptions {
  std::string url;                                           // postgresql://…
  std::string platform = "cpu";                              // which workers may take the jobs
  std::chrono::milliseconds poll{1000};                      // the fallback when no NOTIFY comes
  bool listen = true;                                        // false: poll only
  std::chrono::milliseconds timeout{std::chrono::hours(2)};  // no verdict by then: cancelled
};

class RemotePlatform : public platform::Platform {
 public:
  explicit RemotePlatform(RemotePlatformOptions options);
  ~RemotePlatform() override;
  std::string name() const override { return "remote:" + options_.platform; }
  // Thread-safe. Throws EvaluationAbandoned when the request's abandon flag is set (the job is
  // cancelled), store::ConnectionLost when the database stays unreachable past the window.
  platform::Verdict evaluate(const platform::EvalRequest& request) override;
  // The workers of this platform connected to the database now.
  int64_t live_workers();

 private:
  struct Listener;
  RemotePlatformOptions options_;
  std::unique_ptr<Queue> queue_;
  std::unique_ptr<Listener> listener_;  // last: stopped before the queue goes
};

}  // namespace accelopt::queue
