// A run's wall time with 1, 2 and 4 workers (not a test; run by hand, see docs/scale-out.md,
// "Measured"): a throwaway PostgreSQL server (store/postgres_cluster.h), W `accelopt worker`
// processes each pinned to a core of this machine (worker i on core i mod cores: with more workers
// than cores, two share one), and one `accelopt optimize --remote-workers` with the tuner on a
// task's small workload (the quick preset with K = 2, at most 16 evaluations), which evaluates as
// many candidates at once as workers are connected. For each W it prints the run's wall time, its
// jobs (evaluations, re-timings, the confirmation), the speedup over one worker, how many of its
// jobs overlapped another, and the median enqueue-to-claim on the server's clock.
//
//   scale_out_perftest [iterations, default 2] [workers, default "1,2,4"] [task, default matmul]
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>
#include <thread>

#include "common/error.h"
#include "common/files.h"
#include "common/subprocess.h"
#include "queue/queue.h"
#include "store/postgres_cluster.h"

namespace accelopt::cli {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::vector<std::string> environment() {
  std::vector<std::string> inherited;
  for (char** variable = environ; *variable != nullptr; ++variable)
    inherited.emplace_back(*variable);
  return inherited;
}

Process start(const std::vector<std::string>& arguments, const std::filesystem::path& log,
              std::vector<int> cpus = {}) {
  SpawnOptions options;
  options.argv = {std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt"};
  options.argv.insert(options.argv.end(), arguments.begin(), arguments.end());
  options.environment = environment();
  options.output_file = log;
  options.cpus = std::move(cpus);
  return Process::spawn(options);
}

struct Figures {
  double seconds = 0;
  std::string evaluations, overlapping, claim_ms;
};

Figures measure(store::PostgresCluster& cluster, int workers, int iterations,
                const std::string& task, const std::filesystem::path& folder) {
  std::string name = fmt::format("speedup{}", workers);
  std::string url = cluster.create_database(name);
  auto queue = queue::Queue::open(url);
  long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  std::vector<Process> started;
  for (int index = 0; index < workers; ++index) {
    started.push_back(start(
        {"worker", "--db", url, "--name", fmt::format("w{}", index), "--idle-exit-seconds", "3"},
        folder / fmt::format("{}-worker{}.log", name, index), {static_cast<int>(index % cores)}));
  }
  for (int wait = 0; wait < 600 && queue->live_workers("cpu") < workers; ++wait) {
    std::this_thread::sleep_for(50ms);
  }
  std::filesystem::path config = folder / "accelopt.toml";
  write_file_atomic(
      config, fmt::format("[search]\npreset = \"quick\"\niterations = {}\nimplementations = 2\n"
                          "max_evaluations = 16\n"
                          "timing_target = 0.1\ntiming_budget_seconds = 1.0\n"
                          "timing_min_pairs = 4\ntiming_quiet_wait_seconds = 0\n",
                          iterations));
  auto began = Clock::now();
  Process run =
      start({"optimize", "--task", std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/" + task,
             "--workload", "small", "--agents", "tuner", "--seed", "1", "--config", config.string(),
             "--db", url, "--remote-workers"},
            folder / (name + "-optimize.log"));
  ExitStatus status = run.wait(30min);
  Figures figures;
  figures.seconds = std::chrono::duration<double>(Clock::now() - began).count();
  if (!status.exited || status.exit_code != 0) {
    throw InternalError(fmt::format("optimize with {} workers: {}\n{}", workers, status.describe(),
                                    read_file(folder / (name + "-optimize.log"))));
  }
  for (Process& worker : started) worker.wait(1min);
  figures.evaluations = cluster.psql(name, "SELECT count(*) FROM evaluation_queue");
  figures.overlapping = cluster.psql(
      name,
      "SELECT count(DISTINCT a.id) FROM evaluation_queue a JOIN evaluation_queue b ON a.id <> b.id "
      "AND a.claimed_at < b.finished_at AND b.claimed_at < a.finished_at");
  figures.claim_ms = cluster.psql(
      name,
      "SELECT round((1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM "
      "claimed_at - enqueued_at)))::numeric, 1) FROM evaluation_queue");
  return figures;
}

}  // namespace
}  // namespace accelopt::cli

int main(int argc, char** argv) {
  using namespace accelopt;
  int iterations = argc > 1 ? std::atoi(argv[1]) : 2;
  std::vector<int> counts;
  std::stringstream list(argc > 2 ? argv[2] : "1,2,4");
  std::string task = argc > 3 ? argv[3] : "matmul";
  for (std::string item; std::getline(list, item, ',');) counts.push_back(std::stoi(item));
  std::string why;
  auto cluster = store::PostgresCluster::start(why);
  if (!cluster) {
    std::cerr << "scale_out_perftest: " << why << "\n";
    return 1;
  }
  TempDir folder("accelopt-speedup");
  std::cout << fmt::format(
      "{} small, tuner, quick preset with K = 2, {} iterations, at most 16 evaluations; {} cores "
      "here, worker i pinned to core i mod {}\n",
      task, iterations, sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_ONLN));
  std::cout
      << "workers  wall s  jobs  s/job  speedup  jobs overlapping  enqueue-to-claim (median)\n"
      << std::flush;
  double one = 0;
  try {
    for (int workers : counts) {
      cli::Figures figures = cli::measure(*cluster, workers, iterations, task, folder.path());
      if (one == 0) one = figures.seconds;
      double each = figures.seconds / std::max(1, std::stoi(figures.evaluations));
      std::cout << fmt::format("{:>7}  {:>6.1f}  {:>4}  {:>5.2f}  {:>6.2f}x  {:>16}  {:>8} ms\n",
                               workers, figures.seconds, figures.evaluations, each,
                               one / figures.seconds, figures.overlapping, figures.claim_ms)
                << std::flush;
    }
  } catch (const std::exception& error) {
    std::cerr << "scale_out_perftest: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
