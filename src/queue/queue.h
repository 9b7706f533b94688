// The evaluation queue: a table in the shared PostgreSQL database from which workers on
// accelerator hosts claim evaluations. Each job moves through these states:
//
//   queued ──claim──► leased ──complete──► done
//     ▲                 │ the lease expires (the worker died or hung), or the worker reports a
//     │                 │ harness failure
//     └─ attempts left ─┴─ none left ─► failed
//
// A claim is `FOR UPDATE SKIP LOCKED`, so workers never wait on one another and never get the
// same job. A claim is a lease: the worker renews it by heartbeats while it evaluates; a lease not
// renewed in time expires and the job is queued again, at most max_attempts times in all (2: a
// dead worker's evaluation is redone once). Completion is accepted only from the worker holding
// the current lease, so a worker presumed dead that wakes up cannot record a second verdict.
// All times are the server's clock, so hosts need not agree on theirs.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/json.h"

namespace accelopt::queue {

struct Job {
  int64_t id = 0;
  std::string platform;  // "cpu", "cuda", …: the kind of worker that can evaluate it
  Json request;          // what to evaluate (queue/evaluation_request.h)
  int attempt = 0;       // 1 for the first claim
  std::string worker;
};

enum class JobState { kQueued, kLeased, kDone, kFailed };

struct Outcome {
  JobState state = JobState::kQueued;
  std::optional<Json> result;  // the verdict, when done
  std::string error;           // why the last attempt ended, when it did not complete
  int attempts = 0;
  std::string worker;  // who completed it (or holds it)
};

struct QueueCounts {
  int64_t queued = 0, leased = 0, done = 0, failed = 0;
};

class Queue {
 public:
  // Connects to a "postgresql://…" database (an accelopt one: the store's schema is checked and
  // migrated first) and creates the queue's table if needed. Throws UserError when unreachable.
  static std::unique_ptr<Queue> open(const std::string& url);
  ~Queue();
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  int64_t enqueue(const std::string& platform, const Json& request, int max_attempts = 2);

  // Expires dead leases, then leases the oldest queued job of `platform`, if any.
  std::optional<Job> claim(const std::string& worker, const std::string& platform,
                           std::chrono::milliseconds lease);
  // Renews the lease; false when the job is no longer this worker's (its lease expired and it
  // was queued again): the worker should abandon it.
  bool heartbeat(const Job& job, std::chrono::milliseconds lease);
  // Records the verdict; false when the lease was lost (the verdict is then dropped).
  bool complete(const Job& job, const Json& result);
  // The harness failed on this job (not the kernel: that is a verdict): queue it again while
  // attempts remain. False when the lease was lost.
  bool fail(const Job& job, const std::string& error);
  // Leases past their deadline go back to the queue, or to failed when no attempts remain.
  // Returns how many expired.
  int64_t expire_leases();

  std::optional<Outcome> outcome(int64_t id);
  QueueCounts counts();

 private:
  struct Impl;
  explicit Queue(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

std::string_view state_name(JobState state);  // "queued", "leased", "done", "failed"

}  // namespace accelopt::queue
