// A platform whose evaluations happen elsewhere: `evaluate` enqueues the request in the shared
// PostgreSQL queue and waits for a worker's verdict (`accelopt worker` on an accelerator host). The
// search sees an ordinary platform, so it needs no change to run on remote workers.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "platform/platform.h"

namespace accelopt::queue {

class Queue;

struct RemotePlatformOptions {
  std::string url;               // postgresql://…
  std::string platform = "cpu";  // which workers may take the jobs
  std::chrono::milliseconds poll{50};
  std::chrono::milliseconds timeout{std::chrono::hours(2)};  // no verdict by then: InternalError
};

class RemotePlatform : public platform::Platform {
 public:
  explicit RemotePlatform(RemotePlatformOptions options);
  ~RemotePlatform() override;
  std::string name() const override { return "remote:" + options_.platform; }
  // Thread-safe. Throws InternalError when the job failed on every attempt or timed out.
  platform::Verdict evaluate(const platform::EvalRequest& request) override;

 private:
  RemotePlatformOptions options_;
  std::unique_ptr<Queue> queue_;
};

}  // namespace accelopt::queue
