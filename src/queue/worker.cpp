#include "queue/worker.h"

#include <fmt/format.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <ostream>
#include <stop_token>
#include <thread>

#include "queue/evaluation_request.h"
#include "queue/queue.h"

namespace accelopt::queue {
namespace {

using Clock = std::chrono::steady_clock;

// While an evaluation runs: renews its lease every heartbeat_period on its own connection, and sets
// `abandon` when the lease is lost or the worker is told to stop. Nothing escapes its thread: a
// failed renewal (the database down past the reconnection window) is tried again at the next one.
class Heartbeat {
 public:
  Heartbeat(Queue& queue, const Job& job, std::chrono::milliseconds lease,
            const std::atomic<bool>& stop, std::atomic<bool>& abandon)
      : thread_([this, &queue, job, lease, &stop, &abandon](std::stop_token token) {
          std::mutex mutex;
          std::unique_lock lock(mutex);
          auto period = heartbeat_period(lease);
          auto next = Clock::now() + period;
          auto tick = std::min<std::chrono::milliseconds>(period, std::chrono::milliseconds(50));
          while (!condition_.wait_for(lock, token, tick, [] { return false; })) {
            if (token.stop_requested()) return;
            if (stop) abandon = true;
            if (Clock::now() < next) continue;
            next = Clock::now() + period;
            try {
              if (!queue.heartbeat(job, lease)) {
                lost_ = true;
                abandon = true;
                return;
              }
            } catch (const std::exception& error) {
              std::lock_guard guard(trouble_mutex_);
              trouble_ = error.what();
            }
          }
        }) {}
  bool lost() const { return lost_; }
  std::string trouble() const {
    std::lock_guard guard(trouble_mutex_);
    return trouble_;
  }

 private:
  std::condition_variable_any condition_;
  std::atomic<bool> lost_ = false;
  mutable std::mutex trouble_mutex_;
  std::string trouble_;  // the last renewal that failed
  std::jthread thread_;  // last: started after the members it uses, stopped and joined first
};

// Records a computed verdict, through database outages: each try reconnects for the window;
// then again, until recorded or the worker is stopped. False when the lease was lost.
bool record_verdict(Queue& queue, const Job& job, const Json& verdict,
                    const std::atomic<bool>& stop, const std::string& name, std::ostream& log) {
  for (;;) {
    try {
      return queue.complete(job, verdict);
    } catch (const std::exception& error) {
      if (stop) throw;
      log << fmt::format("worker {}: job {}: keeping its verdict and trying again: {}\n", name,
                         job.id, error.what())
          << std::flush;
    }
  }
}

// Where the verdict was made, kept with it (kernel::Verdict's "remote"), so that a run's record
// says which evaluations were redone and why; a result that is not an object is left alone.
void note_provenance(Json& verdict, const Job& job) {
  if (!verdict.is_object()) return;
  verdict["remote"] = {
      {"worker", job.worker}, {"job", job.id}, {"attempt", job.attempt}, {"earlier", job.earlier}};
}

}  // namespace

std::string default_worker_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return fmt::format("{}:{}", host[0] != '\0' ? host : "unknown-host", ::getpid());
}

WorkerStats run_worker(const WorkerOptions& options, const Evaluate& evaluate,
                       const std::atomic<bool>& stop, std::ostream& log) {
  std::string name = options.name.empty() ? default_worker_name() : options.name;
  auto queue = Queue::open(options.url, worker_application_name(options.platform));
  if (options.listen) queue->listen(kJobsChannel);
  auto heartbeats = Queue::open(options.url);  // a second connection, used while evaluating
  // Registered once both connections are open: a worker counted is one that can take a job.
  heartbeats->serve_worker(queue->register_worker(name, options.platform));
  WorkerStats stats;
  auto idle_since = Clock::now();
  log << fmt::format("worker {}: claiming {} evaluations\n", name, options.platform) << std::flush;
  while (!stop &&
         (options.max_jobs == 0 ||
          stats.completed + stats.failed + stats.lost + stats.released < options.max_jobs)) {
    std::optional<Job> job = queue->claim(name, options.platform, options.lease);
    if (!job) {
      if (options.idle_exit.count() > 0 && Clock::now() - idle_since >= options.idle_exit) break;
      if (options.listen) {
        // Until a NOTIFY or `poll`, in slices so that `stop` is seen within a fraction of a second.
        auto until = Clock::now() + options.poll;
        while (!stop && Clock::now() < until &&
               !queue->wait(std::min<std::chrono::milliseconds>(
                   std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()),
                   std::chrono::milliseconds(250)))) {
        }
      } else {
        std::this_thread::sleep_for(options.poll);
      }
      continue;
    }
    auto started = Clock::now();
    Json verdict;
    std::string error;
    bool malformed = false;
    bool lost = false;
    std::atomic<bool> abandon = false;
    std::string trouble;
    {
      Heartbeat heartbeat(*heartbeats, *job, options.lease, stop, abandon);
      try {
        verdict = evaluate(job->request, abandon);
      } catch (const MalformedRequest& exception) {
        error = exception.what();
        malformed = true;
      } catch (const std::exception& exception) {
        error = exception.what();
        if (error.empty()) error = "an unnamed harness failure";
      }
      lost = heartbeat.lost();
      trouble = heartbeat.trouble();
    }
    double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    bool abandoned = abandon && !error.empty();
    if (!trouble.empty()) {
      log << fmt::format("worker {}: job {}: a lease renewal failed: {}\n", name, job->id, trouble);
    }
    if (lost) {
      ++stats.lost;
      log << fmt::format("worker {}: job {} lost its lease after {:.1f} s; dropped\n", name,
                         job->id, elapsed);
    } else if (abandoned && stop) {
      bool released = queue->release(*job);
      ++stats.released;
      log << fmt::format("worker {}: stopping: job {} {} after {:.1f} s\n", name, job->id,
                         released ? "handed back" : "lost its lease", elapsed);
    } else if (error.empty()) {
      note_provenance(verdict, *job);
      if (record_verdict(*queue, *job, verdict, stop, name, log)) {
        ++stats.completed;
        log << fmt::format("worker {}: job {} {} in {:.1f} s (attempt {}{})\n", name, job->id,
                           verdict.value("status", "done"), elapsed, job->attempt,
                           job->earlier.empty() ? "" : "; before: " + job->earlier);
      } else {
        ++stats.lost;
        log << fmt::format("worker {}: job {} lost its lease after {:.1f} s; dropped\n", name,
                           job->id, elapsed);
      }
    } else if (malformed ? queue->reject(*job, error) : queue->fail(*job, error)) {
      ++stats.failed;
      log << fmt::format("worker {}: job {} {} (attempt {}): {}\n", name, job->id,
                         malformed ? "rejected" : "failed", job->attempt, error);
    } else {
      ++stats.lost;
      log << fmt::format("worker {}: job {} lost its lease after {:.1f} s; dropped\n", name,
                         job->id, elapsed);
    }
    log << std::flush;
    idle_since = Clock::now();
  }
  return stats;
}

}  // namespace accelopt::queue
