// How fast the queue lets workers go (not a test; run by hand, see docs/scale-out.md):
//   1. the queue's own overhead per evaluation: jobs that evaluate nothing, enqueued, claimed,
//      heartbeat-guarded and completed by 1 worker, then the time per job;
//   2. evaluations per hour with 1 and 2 worker processes on real kernels (silu's baseline on its
//      small workload, timed against itself), each worker with the CPU platform.
// Starts a throwaway PostgreSQL server (store/postgres_cluster.h).
//
//   queue_perftest [jobs per worker count, default 8]
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <sstream>

#include "common/files.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/cpu/machine.h"
#include "queue/evaluation_request.h"
#include "queue/queue.h"
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
      options, [](const Json& request) { return request; }, stop, log);
  return since(start);
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
          [&cpu](const Json& request) {
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
  for (int workers : {1, 2}) {
    double seconds = queue::real_seconds(url, workers, jobs);
    std::cout << fmt::format(
                     "{} worker(s): {} evaluations in {:.1f} s = {:.0f} evaluations per hour\n",
                     workers, jobs, seconds, jobs * 3600 / seconds)
              << std::flush;
  }
  return 0;
}
