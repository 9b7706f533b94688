// A worker: the loop that claims evaluations from the queue, evaluates them on this host and
// records their verdicts, renewing its lease by heartbeats while it evaluates.
//
//   claim ──► evaluate (heartbeat every lease/3, at most 2 s, on a second connection) ──► complete
//     │ nothing queued: sleep until an enqueue's        │ the harness threw: fail (another worker
//     │ NOTIFY, at most `poll`, and try again           │ gets it first); a malformed request:
//     │                                                 │ reject (failed for good)
//     └─ stop (SIGTERM) while evaluating: the evaluation is abandoned and the job released, so
//        another worker claims it at once; a lost lease abandons it too.
//
// The worker registers once (Queue::register_worker) and both its connections hold its lock, so
// a run counts it once and a claim notices within seconds when it is gone (queue.h). Its verdict
// says where it was made: "remote" holds the worker, the job, the attempt and why the earlier
// attempts ended.
//
// Nothing escapes the heartbeat thread: a database it cannot reach is retried at the next beat.
// A lost connection is reopened for store::reconnect_window(); a verdict already computed is kept
// and its completion retried until it is recorded or the worker is stopped.
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
  std::chrono::milliseconds poll{1000};    // the fallback when no NOTIFY comes
  bool listen = true;                      // false: poll only (the figures before NOTIFY)
  int64_t max_jobs = 0;                    // stop after this many; 0: never
  std::chrono::milliseconds idle_exit{0};  // stop when nothing was queued this long; 0: never
};

struct WorkerStats {
  int64_t completed = 0;  // verdicts recorded
  int64_t failed = 0;     // harness failures reported (the job is queued again while it may)
  int64_t lost = 0;       // leases lost before completion (the job went to another worker)
  int64_t released = 0;   // jobs handed back when stopped
};

// Returns the verdict JSON for a request JSON; throws for a harness failure (MalformedRequest,
// evaluation_request.h, for a request nobody can evaluate). `abandon` becomes true when the
// worker is stopped or loses the lease: the evaluation should end soon (EvalRequest::abandon).
using Evaluate = std::function<Json(const Json& request, const std::atomic<bool>& abandon)>;

// Runs until a limit of `options` is reached or `stop` becomes true; logs a line per job to `log`.
// Throws store::ConnectionLost when the database stays unreachable past the reconnection window.
WorkerStats run_worker(const WorkerOptions& options, const Evaluate& evaluate,
                       const std::atomic<bool>& stop, std::ostream& log);

// <host>:<pid>
std::string default_worker_name();

}  // namespace accelopt::queue
