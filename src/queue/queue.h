// The evaluation queue: a table in the shared PostgreSQL database from which workers on
// accelerator hosts claim evaluations. Each job moves through these states:
//
//   queued ──claim──► leased ──complete──► done
//     ▲                 │ the lease expires (the worker died or hung), or the worker reports a
//     │                 │ harness failure
//     └─ attempts left ─┴─ none left ─► failed
//
//   leased ──release (the worker was told to stop)──► queued, the attempt not counted
//   queued/leased ──cancel (the run that queued it stopped)──► failed
//   a request that is not JSON ──claim──► failed at once
//
// A claim is `FOR UPDATE SKIP LOCKED`, so workers never wait on one another and never get the
// same job. A claim is a lease: the worker renews it by heartbeats while it evaluates; a lease not
// renewed in time expires and the job is queued again, at most max_attempts times in all (3).
// A harness failure (the task folder missing on that host, a device error) is handed to another
// worker first: the worker that failed may claim the job again only after kHandoff, which lets a
// lone worker retry its own failure. Completion is accepted only from the worker that made the
// current attempt, so a worker presumed dead that wakes up cannot record a second verdict.
// All times are the server's clock, so hosts need not agree on theirs.
//
// Who holds a lease, and whether it lives: a worker registers once (register_worker: a row of
// queue_workers, its stable identity) and each of its connections holds a shared advisory lock
// keyed by that row, taken again after every reconnection. The server drops a session's locks the
// moment the session ends, so pg_locks says which workers are connected now: live_workers counts
// them, and a lease whose holder holds no lock is noticed by the next claim. Such a holder is
// given a grace (its lease, at most kHolderGrace) from when it was first seen gone:
// back within it (a server restart, a killed connection), it keeps its job whatever its lease
// says; not back, its job is queued again without waiting for the lease to run out (a SIGKILLed
// worker, a lost node). A holder whose session lives but which stops renewing (hung, stopped)
// loses its job when its lease runs out, as does a job claimed without registering.
//
// Wake-ups: an enqueue (or a job queued again) NOTIFYs kJobsChannel with the platform, a finished
// job kVerdictsChannel with its id, in the same transaction; listen() and wait() let workers and
// runs sleep on the connection's socket instead of polling, and polling stays as the fallback.
//
// A lost connection (a server restart) is reopened with backoff for store::reconnect_window()
// and the statement run again; every call is safe to run twice (an enqueue adopts the job it
// already made, a completion already recorded reports success).
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
  std::string earlier;  // why the earlier attempts ended ("; "-separated); empty on the first
};

enum class JobState { kQueued, kLeased, kDone, kFailed };

struct Outcome {
  JobState state = JobState::kQueued;
  std::optional<Json> result;  // the verdict, when done
  std::string error;           // why the last attempt ended, when it did not complete
  int attempts = 0;
  std::string worker;  // who completed it (or holds it)
};

// The channels of NOTIFY.
inline constexpr const char* kJobsChannel = "accelopt_jobs";
inline constexpr const char* kVerdictsChannel = "accelopt_verdicts";
// How long a job failed by a worker is kept for the other workers before that worker may retry.
inline constexpr std::chrono::seconds kHandoff{10};
// The longest a lease holder seen gone (no connection left) may take to come back and keep its job.
// A live holder is back well within it: it renews every heartbeat_period (at most 2 s) and a lost
// connection is tried again at least every second.
inline constexpr std::chrono::seconds kHolderGrace{10};
// How often a worker renews a lease of `lease`: a third of it, at most every 2 s.
std::chrono::milliseconds heartbeat_period(std::chrono::milliseconds lease);

struct QueueCounts {
  int64_t queued = 0, leased = 0, done = 0, failed = 0;
};

// The application_name of a worker's claiming connection: "accelopt worker <platform>" (cut to
// PostgreSQL's 63 bytes). For a person reading pg_stat_activity; workers are counted by their
// registration (live_workers), which keeps the platform whole.
std::string worker_application_name(const std::string& platform);

class Queue {
 public:
  // Connects to a "postgresql://…" database (an accelopt one: the store's schema is checked and
  // migrated first) and creates the queue's table if needed. Throws UserError when unreachable.
  // `application_name`: what PostgreSQL shows for this connection (worker_application_name for a
  // worker's, by which live_workers counts them); empty: libpq's default.
  static std::unique_ptr<Queue> open(const std::string& url,
                                     const std::string& application_name = {});
  ~Queue();
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  // Queues a request, or adopts the job already queued, leased or done for the same platform and
  // request whose verdict nobody collected (a run killed while waiting for it, then resumed).
  int64_t enqueue(const std::string& platform, const Json& request, int max_attempts = 3);
  // The verdict of a done job was taken: a later identical request makes a new job.
  void collect(int64_t id);
  // The run that queued it no longer wants it: failed, with `why`; a worker evaluating it loses
  // its lease at the next heartbeat.
  void cancel(int64_t id, const std::string& why);

  // Registers the worker this connection serves (`name`, evaluating `platform`): its stable
  // identity, whose lock this connection holds from now on, again after each reconnection.
  // Returns the identity, for the worker's other connections (serve_worker). Once per Queue.
  int64_t register_worker(const std::string& name, const std::string& platform);
  // This connection serves the worker registered as `worker_id` too (its lock held here as well):
  // the worker's heartbeat connection.
  void serve_worker(int64_t worker_id);

  // Expires dead leases, then leases the oldest queued job of `platform`, if any, held by the
  // registered worker when this connection serves one. A row whose request is not JSON is marked
  // failed and skipped.
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
  // The request itself is broken (no attempt can succeed): failed at once.
  bool reject(const Job& job, const std::string& error);
  // The worker stops before finishing (SIGTERM): queued again at once, the attempt not counted.
  bool release(const Job& job);
  // Leases past their deadline go back to the queue, or to failed when no attempts remain: a
  // holder with a connection, or none registered, at the end of its lease; a registered holder
  // with none, at the end of its grace from when it was first seen gone (this call notes it).
  // Returns how many expired.
  int64_t expire_leases();

  std::optional<Outcome> outcome(int64_t id);
  QueueCounts counts();
  // The registered workers of `platform` connected to this database now (each once, however many
  // connections it has).
  int64_t live_workers(const std::string& platform);

  // LISTENs on `channel` (kJobsChannel, kVerdictsChannel) on this connection, again after every
  // reconnection.
  void listen(const std::string& channel);
  // Sleeps until a notification arrives on a channel listened to, or `timeout`; true when one did
  // (or the connection was reopened, which may have lost some). Not to be called from several
  // threads at once: it holds the connection while it waits.
  bool wait(std::chrono::milliseconds timeout);

 private:
  struct Impl;
  explicit Queue(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

std::string_view state_name(JobState state);  // "queued", "leased", "done", "failed"

}  // namespace accelopt::queue
