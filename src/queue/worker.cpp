#include "queue/worker.h"

#include <fmt/format.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <ostream>
#include <stop_token>
#include <thread>

#include "queue/queue.h"

namespace accelopt::queue {
namespace {

// Renews a job's lease every lease/3 on its own connection until destroyed; says whether the
// lease was lost meanwhile.
class Heartbeat {
 public:
  Heartbeat(Queue& queue, const Job& job, std::chrono::milliseconds lease)
      : thread_([this, &queue, job, lease](std::stop_token stop) {
          std::mutex mutex;
          std::unique_lock lock(mutex);
          while (!condition_.wait_for(lock, stop, lease / 3, [] { return false; })) {
            if (stop.stop_requested()) return;
            if (!queue.heartbeat(job, lease)) {
              lost_ = true;
              return;
            }
          }
        }) {}
  bool lost() const { return lost_; }

 private:
  std::condition_variable_any condition_;
  std::atomic<bool> lost_ = false;
  std::jthread thread_;  // last: started after the members it uses, stopped and joined first
};

}  // namespace

std::string default_worker_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return fmt::format("{}:{}", host[0] != '\0' ? host : "unknown-host", ::getpid());
}

WorkerStats run_worker(const WorkerOptions& options, const Evaluate& evaluate,
                       const std::atomic<bool>& stop, std::ostream& log) {
  std::string name = options.name.empty() ? default_worker_name() : options.name;
  auto queue = Queue::open(options.url);
  auto heartbeats = Queue::open(options.url);  // a second connection, used while evaluating
  WorkerStats stats;
  auto idle_since = std::chrono::steady_clock::now();
  log << fmt::format("worker {}: claiming {} evaluations\n", name, options.platform) << std::flush;
  while (!stop && (options.max_jobs == 0 ||
                   stats.completed + stats.failed + stats.lost < options.max_jobs)) {
    std::optional<Job> job = queue->claim(name, options.platform, options.lease);
    if (!job) {
      if (options.idle_exit.count() > 0 &&
          std::chrono::steady_clock::now() - idle_since >= options.idle_exit) {
        break;
      }
      std::this_thread::sleep_for(options.poll);
      continue;
    }
    auto started = std::chrono::steady_clock::now();
    Json verdict;
    std::string error;
    bool lost = false;
    {
      Heartbeat heartbeat(*heartbeats, *job, options.lease);
      try {
        verdict = evaluate(job->request);
      } catch (const std::exception& exception) {
        error = exception.what();
      }
      lost = heartbeat.lost();
    }
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!lost && error.empty()) lost = !queue->complete(*job, verdict);
    if (!lost && !error.empty()) lost = !queue->fail(*job, error);
    if (lost) {
      ++stats.lost;
      log << fmt::format("worker {}: job {} lost its lease after {:.1f} s; dropped\n", name,
                         job->id, elapsed);
    } else if (!error.empty()) {
      ++stats.failed;
      log << fmt::format("worker {}: job {} failed (attempt {}): {}\n", name, job->id, job->attempt,
                         error);
    } else {
      ++stats.completed;
      log << fmt::format("worker {}: job {} {} in {:.1f} s (attempt {})\n", name, job->id,
                         verdict.value("status", "done"), elapsed, job->attempt);
    }
    log << std::flush;
    idle_since = std::chrono::steady_clock::now();
  }
  return stats;
}

}  // namespace accelopt::queue
