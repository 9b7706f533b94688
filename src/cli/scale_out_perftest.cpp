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
//
// The second form runs the `optimize` arguments given after `--` (plus `--db URL
// --remote-workers`) with workers of `--platform` (unpinned: an evaluator command such as
// evaluators/stand-in uses no core of this machine), started `--late-seconds` after the run
// (default 0: before it, all connected when it starts). It prints the run's wall time, its jobs,
// the speedup over the first count, and the mean jobs in flight (the jobs' claimed-to-finished
// seconds over the wall time).
//
//   scale_out_perftest --platform command:FILE.json [--workers 1,2,4,8] [--late-seconds 3]
//                      [--accelopt PATH] [--timeline FILE] -- OPTIMIZE-ARGUMENTS...
//
// (--accelopt: another build's binary for the workers and the run, to compare two versions;
// --timeline: appends each run's jobs to FILE, a line each: id, worker, the seconds from the
// first job's enqueueing to its enqueueing, claim and finish, the first 6 hex digits of the MD5
// of its source and of its anchor's, `-` for none.)
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
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

// The accelopt binary the runs use: this build's, or the second form's --accelopt.
std::string& accelopt_binary() {
  static std::string binary = std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt";
  return binary;
}

Process start(const std::vector<std::string>& arguments, const std::filesystem::path& log,
              std::vector<int> cpus = {}) {
  SpawnOptions options;
  options.argv = {accelopt_binary()};
  options.argv.insert(options.argv.end(), arguments.begin(), arguments.end());
  options.environment = environment();
  options.output_file = log;
  options.cpus = std::move(cpus);
  return Process::spawn(options);
}

// Workers never leave on their own while a run is measured (a worker idle for a few seconds
// between two narrow rounds would otherwise leave, and the run lose its place): they are stopped
// once it ended, as Slurm's scancel stops them.
void stop_workers(std::vector<Process>& workers) {
  for (Process& worker : workers) ::kill(worker.pid(), SIGTERM);
  for (Process& worker : workers) worker.wait(1min);
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
        {"worker", "--db", url, "--name", fmt::format("w{}", index), "--idle-exit-seconds", "0"},
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
  stop_workers(started);
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

// The second form: `optimize_arguments` on `workers` workers of `platform`, started
// `late_seconds` after the run.
struct RunFigures {
  double seconds = 0, mean_in_flight = 0;
  std::string jobs;
  // A line per job: id, worker, then seconds from the first job's enqueueing to its enqueueing,
  // claim and finish (--timeline).
  std::string timeline;
};

RunFigures measure_run(store::PostgresCluster& cluster, const std::string& platform, int workers,
                       double late_seconds, const std::vector<std::string>& optimize_arguments,
                       const std::filesystem::path& folder) {
  std::string name = fmt::format("run{}w{}", workers, late_seconds > 0 ? "late" : "");
  std::string url = cluster.create_database(name);
  auto queue = queue::Queue::open(url);
  std::vector<Process> started;
  auto start_workers = [&] {
    for (int index = 0; index < workers; ++index) {
      started.push_back(start({"worker", "--db", url, "--platform", platform, "--name",
                               fmt::format("w{}", index), "--idle-exit-seconds", "0"},
                              folder / fmt::format("{}-worker{}.log", name, index)));
    }
  };
  if (late_seconds <= 0) {
    start_workers();
    for (int wait = 0; wait < 600 && queue->live_workers(platform) < workers; ++wait) {
      std::this_thread::sleep_for(50ms);
    }
  }
  std::vector<std::string> arguments = {"optimize"};
  arguments.insert(arguments.end(), optimize_arguments.begin(), optimize_arguments.end());
  arguments.insert(arguments.end(), {"--platform", platform, "--db", url, "--remote-workers"});
  auto began = Clock::now();
  Process run = start(arguments, folder / (name + "-optimize.log"));
  if (late_seconds > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(late_seconds));
    start_workers();
  }
  ExitStatus status = run.wait(60min);
  RunFigures figures;
  figures.seconds = std::chrono::duration<double>(Clock::now() - began).count();
  if (!status.exited || status.exit_code != 0) {
    throw InternalError(fmt::format("optimize with {} workers: {}\n{}", workers, status.describe(),
                                    read_file(folder / (name + "-optimize.log"))));
  }
  stop_workers(started);
  figures.jobs = cluster.psql(name, "SELECT count(*) FROM evaluation_queue");
  double busy = std::stod(
      cluster.psql(name,
                   "SELECT coalesce(sum(extract(epoch FROM finished_at - claimed_at)), 0) FROM "
                   "evaluation_queue"));
  figures.mean_in_flight = busy / figures.seconds;
  figures.timeline = cluster.psql(
      name,
      "SELECT string_agg(format('%s %s %s %s %s %s %s', id, worker, round(extract(epoch FROM "
      "enqueued_at - t0)::numeric, 3), round(extract(epoch FROM claimed_at - t0)::numeric, 3), "
      "round(extract(epoch FROM finished_at - t0)::numeric, 3), "
      "left(md5(request::json->>'source'), "
      "6), CASE WHEN request::json->>'anchor_source' = '' THEN '-' ELSE "
      "left(md5(request::json->>'anchor_source'), 6) END), E'\\n' ORDER BY id) FROM "
      "evaluation_queue, (SELECT min(enqueued_at) AS t0 FROM evaluation_queue) first");
  return figures;
}

// The second form's arguments.
struct RunOptions {
  std::string platform = "cpu";
  std::vector<int> workers = {1, 2, 4, 8};
  double late_seconds = 0;
  std::filesystem::path timeline;  // where each run's jobs are written, if anywhere
  std::vector<std::string> optimize_arguments;
};

std::vector<int> counts_of(const std::string& text) {
  std::vector<int> counts;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) counts.push_back(std::stoi(item));
  return counts;
}

RunOptions run_options(int argc, char** argv) {
  RunOptions options;
  int index = 1;
  for (; index < argc && std::string(argv[index]) != "--"; ++index) {
    std::string flag = argv[index];
    if (index + 1 >= argc) throw UserError(flag + ": a value is missing");
    std::string value = argv[++index];
    if (flag == "--platform") {
      options.platform = value;
    } else if (flag == "--workers") {
      options.workers = counts_of(value);
    } else if (flag == "--late-seconds") {
      options.late_seconds = std::stod(value);
    } else if (flag == "--timeline") {
      options.timeline = std::filesystem::absolute(value);
    } else if (flag == "--accelopt") {
      accelopt_binary() = std::filesystem::absolute(value).string();
    } else {
      throw UserError("unknown flag " + flag +
                      " (--platform, --workers, --late-seconds, --timeline, --accelopt, --)");
    }
  }
  for (++index; index < argc; ++index) options.optimize_arguments.emplace_back(argv[index]);
  if (options.optimize_arguments.empty()) throw UserError("give the optimize arguments after --");
  return options;
}

int measure_runs(int argc, char** argv) {
  RunOptions options = run_options(argc, argv);
  std::string why;
  auto cluster = store::PostgresCluster::start(why);
  if (!cluster) throw UserError(why);
  TempDir folder("accelopt-speedup");
  std::cout << fmt::format("optimize {} on {} workers, started {}\n",
                           fmt::join(options.optimize_arguments, " "), options.platform,
                           options.late_seconds > 0
                               ? fmt::format("{} s after the run", options.late_seconds)
                               : std::string("before the run"));
  std::cout << "workers  wall s  jobs  speedup  mean jobs in flight\n" << std::flush;
  double one = 0;
  for (int workers : options.workers) {
    RunFigures figures = measure_run(*cluster, options.platform, workers, options.late_seconds,
                                     options.optimize_arguments, folder.path());
    if (one == 0) one = figures.seconds;
    if (!options.timeline.empty()) {
      std::ofstream out(options.timeline, std::ios::app);
      out << fmt::format(
          "# {} workers, {:.1f} s\nid worker enqueued claimed finished source anchor\n{}\n",
          workers, figures.seconds, figures.timeline);
    }
    std::cout << fmt::format("{:>7}  {:>6.1f}  {:>4}  {:>6.2f}x  {:>19.2f}\n", workers,
                             figures.seconds, figures.jobs, one / figures.seconds,
                             figures.mean_in_flight)
              << std::flush;
  }
  return 0;
}

}  // namespace
}  // namespace accelopt::cli

int main(int argc, char** argv) {
  using namespace accelopt;
  if (argc > 1 && std::string(argv[1]).rfind("--", 0) == 0) {
    try {
      return cli::measure_runs(argc, argv);
    } catch (const std::exception& error) {
      std::cerr << "scale_out_perftest: " << error.what() << "\n";
      return 1;
    }
  }
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
