// A worker: the loop that claims evaluations from the queue, evaluates them on this host and
// records their verdicts, renewing its lease by heartbeats while it evaluates.
//
//   claim ──► evaluate (heartbeat every lease/3 on a second connection) ──► complete
//     │ nothing queued: wait `poll`, try again          │ the harness threw: fail (queued again)
//
// What "evaluate" means is the caller's (the `accelopt worker` command gives a platform), so the
// loop is testable with any function and knows nothing of compilers.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

#include "common/json.h"

namespace accelopt::queue {

struct WorkerOptions {
  std::string url;               // postgresql://…
  std::string platform = "cpu";  // the jobs this worker can evaluate
  std::string name;              // empty: <host>:<pid>
  std::chrono::milliseconds lease{30000};
  std::chrono::milliseconds poll{200};
  int64_t max_jobs = 0;                    // stop after this many; 0: never
  std::chrono::milliseconds idle_exit{0};  // stop when nothing was queued this long; 0: never
};

struct WorkerStats {
  int64_t completed = 0;  // verdicts recorded
  int64_t failed = 0;     // harness failures reported (the job is queued again while it may)
  int64_t lost = 0;       // leases lost before completion (the job went to another worker)
};

// Returns the verdict JSON for a request JSON; throws for a harness failure.
using Evaluate = std::function<Json(const Json& request)>;

// Runs until a limit of `options` is reached or `stop` becomes true; logs a line per job to `log`.
WorkerStats run_worker(const WorkerOptions& options, const Evaluate& evaluate,
                       const std::atomic<bool>& stop, std::ostream& log);

// <host>:<pid>
std::string default_worker_name();

}  // namespace accelopt::queue
