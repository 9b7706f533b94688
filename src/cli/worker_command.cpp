// `accelopt worker --db postgresql://… --platform cpu`: claims evaluations from the shared queue,
// compiles and runs them on this host with the local harness (the same source rules and compiler
// checks as a local run), and records the verdicts. Stops at --max-jobs, after --idle-exit-seconds
// with nothing queued, or when killed: a killed worker's lease expires and its evaluation is redone
// by another worker.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/scale_out_commands.h"
#include "common/error.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/cpu/machine.h"
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

std::unique_ptr<platform::Platform> make_worker_platform(const WorkerArguments& arguments) {
  if (arguments.platform != "cpu") {
    throw UserError(fmt::format(
        "worker: this build evaluates --platform cpu only; no '{}' platform is built in",
        arguments.platform));
  }
  platform::cpu::CpuPlatformOptions options;
  if (!arguments.compiler.empty()) options.compiler.compiler = arguments.compiler;
  options.compiler.cpus = platform::cpu::compile_cpus();
  return std::make_unique<platform::cpu::CpuPlatform>(
      options, platform::cpu::load_or_probe_machine(false, &std::cerr));
}

int run_worker_command(const WorkerArguments& arguments) {
  std::unique_ptr<platform::Platform> platform = make_worker_platform(arguments);
  queue::WorkerOptions options;
  options.url = arguments.db;
  options.platform = arguments.platform;
  options.name = arguments.name;
  options.lease = milliseconds(arguments.lease_seconds);
  options.max_jobs = arguments.max_jobs;
  options.idle_exit = milliseconds(arguments.idle_exit_seconds);
  auto evaluate = [&platform](const Json& request) {
    queue::LoadedRequest loaded = queue::request_from_json(request);
    return platform->evaluate(loaded.request).to_json();
  };
  std::atomic<bool> stop = false;
  queue::WorkerStats stats = queue::run_worker(options, evaluate, stop, std::cout);
  std::cout << fmt::format("worker: {} completed, {} failed, {} lost\n", stats.completed,
                           stats.failed, stats.lost);
  return 0;
}

}  // namespace

void register_worker_command(CLI::App& app, CommandTable& table) {
  auto arguments = std::make_shared<WorkerArguments>();
  auto* worker =
      app.add_subcommand("worker", "Claim and evaluate kernels from a shared PostgreSQL queue");
  worker->add_option("--db", arguments->db, "the shared database, postgresql://…")->required();
  worker->add_option("--platform", arguments->platform, "cpu or cuda: the jobs to claim")
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
