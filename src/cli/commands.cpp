#include "cli/commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/platform_choice.h"
#include "common/error.h"
#include "common/files.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/cpu/machine.h"
#include "report/progress.h"
#include "report/verdict_text.h"
#include "task/task.h"

namespace accelopt::cli {
namespace {

struct EvalArguments {
  std::string task_directory;
  std::string kernel;
  std::string workload;
  std::string anchor;
  std::string compiler = "g++";
  bool json = false;
  bool no_time = false;
  bool verbose = false;
  double target = 0.02;
  double budget = 20;
  std::string platform = "cpu";
};

int run_eval(const EvalArguments& arguments) {
  PlatformChoice choice = parse_platform_choice(arguments.platform);
  task::Task task = task::load_task(arguments.task_directory, choice.kernel_extension);
  platform::cpu::CpuPlatformOptions options;
  options.compiler.compiler = arguments.compiler;
  ChosenPlatform chosen = make_platform(choice, options);
  platform::EvalRequest request;
  request.task = &task;
  request.workload = arguments.workload;
  std::filesystem::path kernel =
      arguments.kernel.empty() ? task.baseline_path() : std::filesystem::path(arguments.kernel);
  request.source = read_file(kernel);
  if (!arguments.anchor.empty()) {
    request.anchor_source = read_file(arguments.anchor);
    request.anchor_name = std::filesystem::path(arguments.anchor).filename().string();
  }
  request.measure_time = !arguments.no_time;
  request.timing.target_half_width = arguments.target;
  request.timing.budget_seconds = arguments.budget;
  kernel::Verdict verdict;
  {
    report::ElapsedLine progress(
        std::cerr, report::is_smart_terminal(STDERR_FILENO),
        fmt::format("evaluating {} on {}", kernel.filename().string(), task.name));
    verdict = chosen.get().evaluate(request);
  }
  if (arguments.json) {
    std::cout << verdict.to_json().dump(2) << "\n";
  } else {
    std::cout << fmt::format("{:<10} {}\n", "kernel", kernel.string());
    report::print_verdict(std::cout, verdict, arguments.verbose);
  }
  return verdict.passed() ? 0 : 1;
}

int run_machine_probe(bool force, bool json) {
  platform::cpu::MachinePeaks peaks = platform::cpu::load_or_probe_machine(force, &std::cerr);
  if (json) {
    std::cout << peaks.to_json().dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("cpu        {}\n", peaks.cpu_model);
  std::cout << fmt::format("probed     {} ({:.1f} s)\n", peaks.probed_at, peaks.probe_seconds);
  std::cout << fmt::format("fma peak   {:.1f} GFLOP/s (FP32, one core, {})\n", peaks.fma_gflops,
                           peaks.isa);
  std::cout << fmt::format("vector     {:.1f} GFLOP/s (FP32 adds, no FMA)\n", peaks.vector_gflops);
  std::cout << "bandwidth  working set -> GB/s (best of a triad and a read-only stream)\n";
  for (const auto& point : peaks.bandwidth) {
    double size = point.working_set_bytes;
    std::string label = size >= (1 << 20) ? fmt::format("{:.0f} MiB", size / (1 << 20))
                                          : fmt::format("{:.0f} KiB", size / 1024);
    std::cout << fmt::format("  {:>9}  {:6.1f}\n", label, point.gbytes_per_second);
  }
  return 0;
}

}  // namespace

namespace {

CLI::Validator number_at_least(double bound, bool inclusive, const std::string& name) {
  return CLI::Validator(
      [bound, inclusive](std::string& input) -> std::string {
        double value = 0;
        try {
          size_t used = 0;
          value = std::stod(input, &used);
          if (used != input.size()) throw std::invalid_argument(input);
        } catch (const std::exception&) {
          return "not a number: " + input;
        }
        if (inclusive ? value >= bound : value > bound) return "";
        return fmt::format("must be {} {}, not {}", inclusive ? "at least" : "above", bound, input);
      },
      name);
}

}  // namespace

CLI::Validator positive_number() {
  return number_at_least(0, false, "POSITIVE");
}
CLI::Validator non_negative_number() {
  return number_at_least(0, true, "NONNEGATIVE");
}

void register_commands(CLI::App& app, CommandTable& table) {
  auto eval_arguments = std::make_shared<EvalArguments>();
  CLI::App* eval = app.add_subcommand("eval", "Judge one kernel: correctness, speed, % of peak");
  eval->add_option("--task", eval_arguments->task_directory, "task directory")->required();
  eval->add_option("--kernel", eval_arguments->kernel,
                   "kernel source (default: the task's baseline)");
  eval->add_option("--workload", eval_arguments->workload,
                   "workload name (default: the task's default)");
  eval->add_option("--anchor", eval_arguments->anchor,
                   "kernel to time against (default: the baseline)");
  eval->add_option("--compiler", eval_arguments->compiler, "g++ or clang++")->capture_default_str();
  eval->add_option("--platform", eval_arguments->platform, "cpu, cuda or command:<file.json>")
      ->capture_default_str();
  eval->add_option("--target", eval_arguments->target,
                   "target half-width of the speedup's 95% interval")
      ->capture_default_str()
      ->check(positive_number());
  eval->add_option("--budget", eval_arguments->budget, "timing budget in seconds")
      ->capture_default_str()
      ->check(positive_number());
  eval->add_flag("--no-time", eval_arguments->no_time, "check correctness only");
  eval->add_flag("--json", eval_arguments->json, "print the trace record as JSON");
  eval->add_flag("-v,--verbose", eval_arguments->verbose,
                 "show every loop, the sandbox and the log");
  eval->callback([&table, eval_arguments] {
    table.select([eval_arguments] { return run_eval(*eval_arguments); });
  });

  CLI::App* machine = app.add_subcommand("machine", "This machine's measured peaks");
  machine->require_subcommand(1);
  auto force = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  CLI::App* probe = machine->add_subcommand(
      "probe", "Measure (or show the cached) FMA, vector and bandwidth peaks");
  probe->add_flag("--force", *force, "probe again even if cached");
  probe->add_flag("--json", *json, "print JSON");
  probe->callback([&table, force, json] {
    table.select([force, json] { return run_machine_probe(*force, *json); });
  });

  register_bench_commands(app, table);
  register_llm_commands(app, table);
  register_loop_commands(app, table);
  register_report_commands(app, table);
  register_memory_commands(app, table);
}

}  // namespace accelopt::cli
