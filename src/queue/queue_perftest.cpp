// How fast the queue lets workers go (not a test; run by hand, see docs/scale-out.md):
//   1. the queue's own overhead per evaluation: jobs that evaluate nothing, enqueued, claimed,
//      heartbeat-guarded and completed by 1 worker, then the time per job;
//   2. the latency a live run sees: one idle worker process, and a RemotePlatform that queues one
//      evaluation at a time (a no-op evaluation) and waits for its verdict; enqueue-to-claim (the
//      server's clock) and enqueue-to-verdict (the run's), polling only (the worker every 200 ms,
//      the run every 50 ms: before LISTEN/NOTIFY) and listening, beside the database's round trip;
//   3. evaluations per hour with 1 and 2 worker processes on real kernels (silu's baseline on its
//      small workload, timed against itself), each worker with the CPU platform.
// Starts a throwaway PostgreSQL server (store/postgres_cluster.h).
//
//   queue_perftest [jobs per worker count, default 8] [--latency-only]
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>
#include <pqxx/pqxx>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>
#include <thread>

#include "common/files.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/cpu/machine.h"
#include "queue/evaluation_request.h"
#include "queue/queue.h"
#include "queue/remote_platform.h"
#include "queue/worker.h"
#include "store/postgres_cluster.h"

namespace accelopt::queue {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Seconds to drain `jobs` no-op jobs with one worker in this process.
double noop_seconds(const std::string& url, int jobs) {
  auto queue = Queue::open(url);
  for (int index = 0; index < jobs; ++index) queue->enqueue("noop", Json{{"n", index}});
  WorkerOptions options;
  options.url = url;
  options.platform = "noop";
  options.max_jobs = jobs;
  options.poll = std::chrono::milliseconds(1);
  std::atomic<bool> stop = false;
  std::ostringstream log;
  auto start = Clock::now();
  run_worker(
      options, [](const Json& request, const std::atomic<bool>&) { return request; }, stop, log);
  return since(start);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Milliseconds of one `SELECT 1` transaction, the median of many.
double round_trip_ms(const std::string& url) {
  pqxx::connection connection(url);
  std::vector<double> times;
  for (int index = 0; index < 200; ++index) {
    auto start = Clock::now();
    pqxx::work work(connection);
    work.exec("SELECT 1");
    work.commit();
    times.push_back(1000 * since(start));
  }
  return median(times);
}

struct Latency {
  double claim_ms = 0, verdict_ms = 0;  // medians
};

// One idle worker process; `jobs` evaluations queued one at a time by a RemotePlatform.
Latency live_latency(const std::string& url, bool listen, int jobs) {
  std::string lane = listen ? "live-listen" : "live-poll";
  pid_t child = fork();
  if (child == 0) {
    WorkerOptions options;
    options.url = url;
    options.platform = lane;
    options.listen = listen;
    options.poll = std::chrono::milliseconds(listen ? 1000 : 200);
    options.max_jobs = jobs;
    std::atomic<bool> stop = false;
    std::ostringstream log;
    run_worker(
        options,
        [](const Json&, const std::atomic<bool>&) { return platform::Verdict{}.to_json(); }, stop,
        log);
    _exit(0);
  }
  static task::Task task = task::load_task(std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu");
  RemotePlatformOptions options;
  options.url = url;
  options.platform = lane;
  options.listen = listen;
  options.poll = std::chrono::milliseconds(listen ? 1000 : 50);
  RemotePlatform remote(options);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the worker is idle
  std::vector<double> verdicts;
  for (int index = 0; index < jobs; ++index) {
    platform::EvalRequest request;
    request.task = &task;
    request.workload = "small";
    request.source = fmt::format("// {} {}", lane, index);
    request.measure_time = false;
    auto start = Clock::now();
    remote.evaluate(request);
    verdicts.push_back(1000 * since(start));
    // An idle gap, as between a run's evaluations, off the worker's polling phase.
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + 37 * (index % 5)));
  }
  ::waitpid(child, nullptr, 0);
  pqxx::connection connection(url);
  pqxx::work work(connection);
  std::vector<double> claims;
  for (const pqxx::row& row : work.exec_params(
           "SELECT 1000 * extract(epoch FROM claimed_at - enqueued_at) FROM evaluation_queue "
           "WHERE platform = $1",
           lane)) {
    claims.push_back(row[0].as<double>());
  }
  return {median(claims), median(verdicts)};
}

Json silu_request(int index) {
  static task::Task task = task::load_task(std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu");
  platform::EvalRequest request;
  request.task = &task;
  request.workload = "small";
  request.source = read_file(task.baseline_path()) + "\n// copy " + std::to_string(index);
  request.timing.target_half_width = 0.05;
  request.timing.budget_seconds = 2;
  return request_to_json(request);
}

// Seconds for `workers` forked worker processes to evaluate `jobs` real kernels.
double real_seconds(const std::string& url, int workers, int jobs) {
  auto queue = Queue::open(url);
  std::string platform = fmt::format("cpu-{}", workers);  // a fresh lane per measurement
  for (int index = 0; index < jobs; ++index) queue->enqueue(platform, silu_request(index));
  platform::cpu::MachinePeaks peaks = platform::cpu::load_or_probe_machine(false, &std::cerr);
  auto start = Clock::now();
  std::vector<pid_t> children;
  for (int worker = 0; worker < workers; ++worker) {
    pid_t child = fork();
    if (child == 0) {
      platform::cpu::CpuPlatformOptions options;
      options.compiler.cpus = platform::cpu::compile_cpus();
      platform::cpu::CpuPlatform cpu(options, peaks);
      WorkerOptions worker_options;
      worker_options.url = url;
      worker_options.platform = platform;
      worker_options.idle_exit = std::chrono::milliseconds(500);
      worker_options.poll = std::chrono::milliseconds(20);
      std::atomic<bool> stop = false;
      run_worker(
          worker_options,
          [&cpu](const Json& request, const std::atomic<bool>&) {
            LoadedRequest loaded = request_from_json(request);
            return cpu.evaluate(loaded.request).to_json();
          },
          stop, std::cerr);
      _exit(0);
    }
    children.push_back(child);
  }
  for (pid_t child : children) ::waitpid(child, nullptr, 0);
  return since(start) - 0.5;  // less the idle wait before the last worker exits
}

}  // namespace
}  // namespace accelopt::queue

int main(int argc, char** argv) {
  using namespace accelopt;
  int jobs = argc > 1 ? std::atoi(argv[1]) : 8;
  std::string why;
  auto cluster = store::PostgresCluster::start(why);
  if (!cluster) {
    std::cerr << "queue_perftest: " << why << "\n";
    return 1;
  }
  std::string url = cluster->create_database("perf");
  int noop_jobs = 200;
  double noop = queue::noop_seconds(url, noop_jobs);
  std::cout << fmt::format("queue overhead: {:.2f} ms per evaluation ({} no-op jobs, 1 worker)\n",
                           1000 * noop / noop_jobs, noop_jobs)
            << std::flush;  // before the workers fork, or they inherit the unflushed line
  std::cout << fmt::format("database round trip (SELECT 1 transaction): {:.2f} ms\n",
                           queue::round_trip_ms(url))
            << std::flush;
  int live_jobs = 30;
  for (bool listen : {false, true}) {
    queue::Latency latency = queue::live_latency(url, listen, live_jobs);
    std::cout << fmt::format(
                     "live run, {}: enqueue-to-claim {:.1f} ms, enqueue-to-verdict {:.1f} ms "
                     "(medians of {} evaluations, one at a time)\n",
                     listen ? "LISTEN/NOTIFY" : "polling (worker 200 ms, run 50 ms)",
                     latency.claim_ms, latency.verdict_ms, live_jobs)
              << std::flush;
  }
  if (argc > 2 && std::string(argv[2]) == "--latency-only") return 0;
  for (int workers : {1, 2}) {
    double seconds = queue::real_seconds(url, workers, jobs);
    std::cout << fmt::format(
                     "{} worker(s): {} evaluations in {:.1f} s = {:.0f} evaluations per hour\n",
                     workers, jobs, seconds, jobs * 3600 / seconds)
              << std::flush;
  }
  return 0;
}
