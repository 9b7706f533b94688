#include "cli/commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/workspace.h"
#include "common/error.h"
#include "common/files.h"
#include "platform/registry.h"
#include "report/machine_text.h"
#include "report/progress.h"
#include "report/stored_figures.h"
#include "report/verdict_text.h"
#include "task/baseline_stub.h"
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
  bool time_ceiling = false;
  bool verbose = false;
  double target = 0.02;
  double budget = 20;
  std::string platform = "cpu";
  std::string workspace;  // empty: the default one, when it exists
};

// What the workspace holds for the same source on the same task and workload: the stored figures
// and the kept baseline's line; none when there is no workspace (the default one is only read when
// it exists, never made).
struct WorkspaceKnows {
  std::vector<report::StoredFigure> stored;
  std::string kept_baseline;
};
WorkspaceKnows workspace_knows(const EvalArguments& arguments, const task::Task& task,
                               const platform::EvalRequest& request, const std::string& platform,
                               const kernel::Verdict& verdict) {
  std::string workspace = arguments.workspace;
  if (workspace.empty()) {
    if (!std::filesystem::exists(std::filesystem::path(kDefaultWorkspace) / "accelopt.db")) {
      return {};
    }
    workspace = kDefaultWorkspace;
  }
  auto store = open_workspace(workspace, Access::kRead);
  std::string anchor =
      request.anchor_source.empty() ? read_file(task.baseline_path()) : request.anchor_source;
  std::string workload = task.workload_or_default(request.workload).name;
  return {report::stored_figures(*store, task.name, workload, request.source, anchor),
          report::kept_baseline_text(store->kept_baseline(task.name, workload, platform), anchor,
                                     verdict)};
}

int run_eval(const EvalArguments& arguments) {
  platform::PlatformChoice choice = platform::parse_platform_choice(arguments.platform);
  task::Task task =
      task::load_task(find_task_directory(arguments.task_directory), choice.kernel_extension);
  platform::BuiltPlatform chosen =
      platform::make_platform(choice, {.progress = &std::cerr, .compiler = arguments.compiler});
  platform::EvalRequest request;
  request.task = &task;
  request.workload = arguments.workload;
  std::filesystem::path kernel =
      arguments.kernel.empty() ? task.baseline_path() : std::filesystem::path(arguments.kernel);
  request.source = read_file(kernel);
  bool no_baseline = task::is_baseline_stub(read_file(task.baseline_path()));
  if (arguments.kernel.empty() && no_baseline) {
    throw UserError(task::baseline_stub_message(kernel));
  }
  if (!arguments.anchor.empty()) {
    request.anchor_source = read_file(arguments.anchor);
    request.anchor_name = std::filesystem::path(arguments.anchor).filename().string();
  } else if (no_baseline) {  // nothing to time against but the kernel itself (the stub is wrong)
    request.anchor_source = request.source;
    request.anchor_name = "itself (the task has no baseline)";
  }
  request.measure_time = !arguments.no_time;
  request.time_ceiling = arguments.time_ceiling;
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
    WorkspaceKnows known = workspace_knows(arguments, task, request, chosen.get().name(), verdict);
    std::cout << report::stored_figures_text(known.stored, verdict) << known.kept_baseline;
  }
  if (verdict.machine_busy()) return kExitMachineBusy;
  return verdict.passed() ? 0 : 1;
}

struct MachineArguments {
  std::string platform = "cpu";
  bool force = false;
  bool json = false;
};

// What the platform measures and says of its machine: the facts the agents are told.
int run_machine_probe(const MachineArguments& arguments) {
  platform::PlatformChoice choice = platform::parse_platform_choice(arguments.platform);
  platform::BuiltPlatform built =
      platform::make_platform(choice, {.progress = &std::cerr, .probe_again = arguments.force});
  if (arguments.json) {
    std::cout << built.description.record.dump(2) << "\n";
  } else {
    report::print_machine(std::cout, built.description);
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
  eval->add_option("--platform", eval_arguments->platform, platform::platform_forms())
      ->capture_default_str();
  eval->add_option("--target", eval_arguments->target,
                   "target half-width of the speedup's 95% interval")
      ->capture_default_str()
      ->check(positive_number());
  eval->add_option("--budget", eval_arguments->budget, "timing budget in seconds")
      ->capture_default_str()
      ->check(positive_number());
  eval->add_flag("--no-time", eval_arguments->no_time, "check correctness only");
  eval->add_flag("--time-ceiling", eval_arguments->time_ceiling,
                 "time the task's binding ceiling between the turns and score against it (cpu)");
  eval->add_option("--workspace,--db", eval_arguments->workspace,
                   "where to look for this kernel's stored figures (default: .accelopt, when it "
                   "exists)");
  eval->add_flag("--json", eval_arguments->json, "print the trace record as JSON");
  eval->add_flag("-v,--verbose", eval_arguments->verbose,
                 "show every loop, the sandbox and the log");
  eval->callback([&table, eval_arguments] {
    table.select([eval_arguments] { return run_eval(*eval_arguments); });
  });

  CLI::App* machine = app.add_subcommand("machine", "The machine's measured peaks");
  machine->require_subcommand(1);
  auto machine_arguments = std::make_shared<MachineArguments>();
  CLI::App* probe = machine->add_subcommand(
      "probe",
      "Measure (or show the cached) ceilings, and what the agents are told of the machine");
  probe->add_option("--platform", machine_arguments->platform, platform::platform_forms())
      ->capture_default_str();
  probe->add_flag("--force", machine_arguments->force, "probe again even if cached");
  probe->add_flag("--json", machine_arguments->json, "print the probe's record as JSON");
  probe->callback([&table, machine_arguments] {
    table.select([machine_arguments] { return run_machine_probe(*machine_arguments); });
  });

  register_bench_commands(app, table);
  register_llm_commands(app, table);
  register_loop_commands(app, table);
  register_report_commands(app, table);
  register_study_commands(app, table);
  register_memory_commands(app, table);
  register_prompt_command(app, table);
}

}  // namespace accelopt::cli
