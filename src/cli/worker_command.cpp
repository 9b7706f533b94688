// `accelopt worker --db postgresql://… --platform cpu|cuda|command:FILE`: claims evaluations from
// the shared queue, compiles and runs them on this host with the local harness (the same source
// rules and compiler checks as a local run), and records the verdicts. Stops at --max-jobs, after
// --idle-exit-seconds with nothing queued, or on SIGTERM/SIGINT (Slurm's time limit, scancel): the
// evaluation in flight is abandoned and its job handed back, so another worker claims it at once.
// A SIGKILLed worker's lease expires instead, and its evaluation is redone by another worker.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/scale_out_commands.h"
#include "cli/signals.h"
#include "common/error.h"
#include "platform/registry.h"
#include "queue/evaluation_request.h"
#include "queue/worker.h"

namespace accelopt::cli {
namespace {

struct WorkerArguments {
  std::string db;
  std::string platform = "cpu";
  std::string name;
  std::string compiler;
  double lease_seconds = 30;
  int64_t max_jobs = 0;
  double idle_exit_seconds = 0;
};

std::chrono::milliseconds milliseconds(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

int run_worker_command(const WorkerArguments& arguments) {
  // The same platforms as optimize's --platform; the jobs claimed are those queued for this value.
  platform::PlatformChoice choice = platform::parse_platform_choice(arguments.platform);
  platform::BuiltPlatform platform =
      platform::make_platform(choice, {.progress = &std::cerr, .compiler = arguments.compiler});
  queue::WorkerOptions options;
  options.url = arguments.db;
  options.platform = choice.value;
  options.name = arguments.name;
  options.lease = milliseconds(arguments.lease_seconds);
  options.max_jobs = arguments.max_jobs;
  options.idle_exit = milliseconds(arguments.idle_exit_seconds);
  auto evaluate = [&platform](const Json& request, const std::atomic<bool>& abandon) {
    queue::LoadedRequest loaded = queue::request_from_json(request);
    loaded.request.abandon = &abandon;
    return platform.get().evaluate(loaded.request).to_json();
  };
  StopOnSignals signals;
  queue::WorkerStats stats = queue::run_worker(options, evaluate, signals.requested(), std::cout);
  std::cout << fmt::format("worker: {} completed, {} failed, {} lost, {} handed back\n",
                           stats.completed, stats.failed, stats.lost, stats.released);
  return signals.signal() != 0 ? signals.exit_code() : 0;
}

}  // namespace

void register_worker_command(CLI::App& app, CommandTable& table) {
  auto arguments = std::make_shared<WorkerArguments>();
  auto* worker =
      app.add_subcommand("worker", "Claim and evaluate kernels from a shared PostgreSQL queue");
  worker->add_option("--db", arguments->db, "the shared database, postgresql://…")->required();
  worker
      ->add_option(
          "--platform", arguments->platform,
          platform::platform_forms() + ": the jobs to claim (the value optimize --platform queued)")
      ->capture_default_str();
  worker->add_option("--name", arguments->name, "this worker's name (default: host:pid)");
  worker->add_option("--compiler", arguments->compiler, "C++ compiler for the kernels");
  worker
      ->add_option("--lease-seconds", arguments->lease_seconds,
                   "lease per claim, renewed every third of it while evaluating")
      ->capture_default_str();
  worker->add_option("--max-jobs", arguments->max_jobs, "stop after this many jobs (0: never)")
      ->capture_default_str();
  worker
      ->add_option("--idle-exit-seconds", arguments->idle_exit_seconds,
                   "stop after this long with nothing queued (0: never)")
      ->capture_default_str();
  worker->callback([&table, arguments] {
    table.select([arguments] { return run_worker_command(*arguments); });
  });
}

}  // namespace accelopt::cli
