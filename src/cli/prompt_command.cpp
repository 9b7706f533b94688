// `accelopt prompt`: what a role's model would be sent for a task on a platform, rendered by the
// agents' own code with the options a run would give them (agent_setup.h), and sent nowhere. A
// user reads and tunes the prompts with it; the tests check what each role is told with it.
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>

#include "agents/llm_agents.h"
#include "cli/agent_setup.h"
#include "cli/commands.h"
#include "cli/workspace.h"
#include "common/error.h"
#include "common/files.h"
#include "memory/memory.h"
#include "platform/registry.h"
#include "report/progress.h"
#include "roles/roles.h"
#include "search/config.h"
#include "search/figures.h"
#include "store/store.h"
#include "task/task.h"

namespace accelopt::cli {
namespace {

struct PromptArguments {
  std::string role;
  std::string task_directory;
  std::string workload;
  std::string platform = "cpu";
  std::string kernel;  // empty: the task's baseline
  std::string slow;    // the summarizer's kernel before the rewrite; empty: the baseline
  std::string plan;
  std::string plan_file;
  std::string config;
  std::string preset = "quick";
  std::string agents = "llm";
  std::string prompts;
  std::string part = "both";
  std::string workspace = kDefaultWorkspace;  // the optimization memory the planner is shown
  bool no_memory = false;
  bool evaluate = false;
  bool json = false;
};

constexpr const char* kNoPlan =
    "(no plan was given: `accelopt prompt --plan TEXT` or `--plan-file FILE` puts one here)";

// Not a role: the executor's other prompt (roles::BaselineWriter), shown under its templates' name.
constexpr std::string_view kBaselineRole = "baseline";

roles::Plan plan_of(const PromptArguments& arguments) {
  if (!arguments.plan.empty() && !arguments.plan_file.empty()) {
    throw UserError("--plan and --plan-file: give one of them");
  }
  roles::Plan plan;
  plan.author = "user";
  plan.text = !arguments.plan_file.empty() ? read_file(arguments.plan_file)
              : !arguments.plan.empty()    ? arguments.plan
                                           : kNoPlan;
  return plan;
}

// The kernel as the agents would see it: its source, and its verdict when --evaluate asked the
// platform for one (timed against `anchor`, the baseline unless given).
roles::KernelView view_of(const task::Task& task, const std::string& workload,
                          const std::filesystem::path& kernel, const std::string& anchor,
                          platform::Platform* judge, const platform::TimingOptions& timing) {
  roles::KernelView view;
  view.task = &task;
  view.workload = workload;
  view.source = read_file(kernel);
  if (judge == nullptr) return view;
  platform::EvalRequest request;
  request.task = &task;
  request.workload = workload;
  request.source = view.source;
  if (!anchor.empty()) {
    request.anchor_source = read_file(anchor);
    request.anchor_name = std::filesystem::path(anchor).filename().string();
  }
  request.timing = timing;
  report::ElapsedLine progress(
      std::cerr, report::is_smart_terminal(STDERR_FILENO),
      fmt::format("evaluating {} on {}", kernel.filename().string(), task.name));
  view.verdict = judge->evaluate(request);
  view.timing_target = timing.target_half_width;
  // Timed against the baseline, its figure is the run's kind: over the baseline, or the baseline,
  // on the scale its own timing implies for the baseline.
  const kernel::Verdict& verdict = *view.verdict;
  if (anchor.empty() && verdict.passed() && verdict.timing && verdict.timing->speedup > 0) {
    double speedup = verdict.timing->speedup;
    search::RunScale scale(verdict.timing->latency_seconds * speedup,
                           verdict.roofline ? verdict.roofline->percent_of_peak / speedup : 0);
    bool baseline = std::filesystem::equivalent(kernel, task.baseline_path());
    view.figures = search::kernel_figures(scale, verdict, baseline, 0, {});
    if (view.figures) {
      view.figures->origin =
          baseline ? "timed against itself by `accelopt prompt --evaluate`"
                   : "timed paired against the baseline by `accelopt prompt --evaluate`";
    }
  }
  return view;
}

// The memory the planner of a new run in `workspace` would be shown: none when the workspace
// holds no database yet, or the search keeps no memory.
std::vector<roles::Insight> memory_of(const PromptArguments& arguments, const task::Task& task,
                                      const search::SearchConfig& config) {
  if (arguments.no_memory || config.strategy != search::Strategy::kBeam) return {};
  if (!store::is_postgres_url(arguments.workspace) &&
      !std::filesystem::exists(store::database_path(arguments.workspace))) {
    std::cerr << fmt::format("no accelopt database at {}: the planner is shown no memory\n",
                             store::database_path(arguments.workspace).string());
    return {};
  }
  std::unique_ptr<store::Store> store = open_workspace(arguments.workspace, Access::kRead);
  return memory::planner_insights(*store, task, config.memory, 0,
                                  memory::Visibility::up_to(store->max_memory_id()));
}

int run_prompt(const PromptArguments& arguments) {
  if (arguments.agents != "llm" && arguments.agents != "hybrid") {
    throw UserError(fmt::format(
        "--agents: '{}' has no prompts; the LLM agents (llm or hybrid) are the ones told",
        arguments.agents));
  }
  if (!arguments.prompts.empty() && !std::filesystem::is_directory(arguments.prompts)) {
    throw UserError(fmt::format("--prompts: {} is not a folder", arguments.prompts));
  }
  bool needs_verdict = arguments.role == roles::kFixer || arguments.role == roles::kSummarizer;
  if (needs_verdict && !arguments.evaluate) {
    throw UserError(fmt::format(
        "the {} is told measured kernels: add --evaluate to judge {} on the platform first",
        arguments.role,
        arguments.role == roles::kFixer ? "the failing --kernel" : "--slow and --kernel"));
  }
  platform::PlatformChoice choice = platform::parse_platform_choice(arguments.platform);
  task::Task task =
      task::load_task(find_task_directory(arguments.task_directory), choice.kernel_extension);
  task.workload_or_default(arguments.workload);  // an unknown workload fails here
  ConfigFile file = read_config(arguments.config);
  search::SearchConfig config = search::preset(arguments.preset);
  if (!file.path.empty()) search::apply_config_text(config, file.text, file.path);
  roles::Plan plan = plan_of(arguments);
  platform::BuiltPlatform built = platform::make_platform(choice, {.progress = &std::cerr});
  agents::LlmAgentOptions options =
      llm_agent_options(arguments.agents, arguments.prompts, built, config);
  platform::Platform* judge = arguments.evaluate ? &built.get() : nullptr;
  std::filesystem::path kernel =
      arguments.kernel.empty() ? task.baseline_path() : std::filesystem::path(arguments.kernel);

  agents::RolePrompt prompt;
  if (arguments.role == roles::kPlanner) {
    roles::KernelView view = view_of(task, arguments.workload, kernel, "", judge, config.timing);
    prompt =
        agents::planner_prompt(options, view, memory_of(arguments, task, config), config.plans);
  } else if (arguments.role == roles::kExecutor) {
    roles::KernelView view = view_of(task, arguments.workload, kernel, "", judge, config.timing);
    prompt = agents::executor_prompt(options, view, plan, config.implementations);
  } else if (arguments.role == roles::kFixer) {
    roles::KernelView view = view_of(task, arguments.workload, kernel, "", judge, config.timing);
    if (view.verdict->passed()) {
      throw UserError(fmt::format("{} passed: the fixer is asked only about a kernel that failed",
                                  kernel.string()));
    }
    prompt = agents::fixer_prompt(options, view, plan);
  } else if (arguments.role == roles::kSummarizer) {
    std::filesystem::path slow =
        arguments.slow.empty() ? task.baseline_path() : std::filesystem::path(arguments.slow);
    roles::RewritePair pair;
    pair.plan = plan;
    pair.slow = view_of(task, arguments.workload, slow, "", judge, config.timing);
    pair.fast = view_of(task, arguments.workload, kernel, slow.string(), judge, config.timing);
    if (!pair.slow.verdict->passed() || !pair.fast.verdict->passed()) {
      throw UserError("the summarizer is told about two kernels that passed: " +
                      (pair.slow.verdict->passed() ? kernel.string() : slow.string()) + " did not");
    }
    const kernel::Timing& timing = *pair.fast.verdict->timing;
    pair.speedup = timing.speedup;
    pair.speedup_low = timing.speedup_low;
    pair.speedup_high = timing.speedup_high;
    prompt = agents::summarizer_prompt(options, pair);
  } else if (arguments.role == kBaselineRole) {
    // The executor writing the first kernel of a task without a baseline: shown the stub.
    prompt = agents::baseline_prompt(
        options, view_of(task, arguments.workload, task.baseline_path(), "", nullptr, {}));
  }
  if (arguments.json) {
    std::cout
        << Json{{"role", arguments.role}, {"system", prompt.system}, {"user", prompt.user}}.dump(2)
        << "\n";
  } else if (arguments.part == "system") {
    std::cout << prompt.system << "\n";
  } else if (arguments.part == "user") {
    std::cout << prompt.user << "\n";
  } else {
    std::cout << "==== system ====\n"
              << prompt.system << "\n==== user ====\n"
              << prompt.user << "\n";
  }
  return 0;
}

}  // namespace

void register_prompt_command(CLI::App& app, CommandTable& table) {
  auto arguments = std::make_shared<PromptArguments>();
  CLI::App* prompt = app.add_subcommand(
      "prompt", "Print what a role's model would be sent for a task (nothing is sent)");
  prompt
      ->add_option("--role", arguments->role,
                   "planner, executor, fixer or summarizer; baseline: the executor writing the "
                   "first kernel of a task without a baseline")
      ->required()
      ->check(CLI::IsMember({std::string(roles::kPlanner), std::string(roles::kExecutor),
                             std::string(roles::kFixer), std::string(roles::kSummarizer),
                             std::string(kBaselineRole)}));
  prompt->add_option("--task", arguments->task_directory, "task directory")->required();
  prompt->add_option("--workload", arguments->workload,
                     "workload name (default: the task's default)");
  prompt->add_option("--platform", arguments->platform, platform::platform_forms())
      ->capture_default_str();
  prompt->add_option("--kernel", arguments->kernel,
                     "the kernel the role is shown (default: the task's baseline); the "
                     "summarizer's kernel after the rewrite");
  prompt->add_option("--slow", arguments->slow,
                     "the summarizer's kernel before the rewrite (default: the baseline)");
  prompt->add_option("--plan", arguments->plan, "the plan, for the executor, fixer, summarizer");
  prompt->add_option("--plan-file", arguments->plan_file, "the plan, read from a file");
  prompt->add_option("--config", arguments->config,
                     "the run's TOML configuration ([search] sets how many plans and kernels)");
  prompt->add_option("--preset", arguments->preset, "quick or paper")->capture_default_str();
  prompt->add_option("--agents", arguments->agents, "llm or hybrid")->capture_default_str();
  prompt->add_option("--prompts", arguments->prompts, "your prompt templates' folder");
  prompt
      ->add_option("--workspace", arguments->workspace,
                   "the folder (or postgresql:// URL) whose optimization memory the planner is "
                   "shown")
      ->capture_default_str();
  prompt->add_flag("--no-memory", arguments->no_memory, "show the planner no memory");
  prompt->add_flag("--evaluate", arguments->evaluate,
                   "judge the kernel(s) on the platform first, so the prompt shows the verdict "
                   "and profile a run's agents see (the fixer and summarizer need it)");
  prompt->add_option("--part", arguments->part, "system, user or both")
      ->capture_default_str()
      ->check(CLI::IsMember({"system", "user", "both"}));
  prompt->add_flag("--json", arguments->json, "print {role, system, user} as JSON");
  prompt->callback(
      [&table, arguments] { table.select([arguments] { return run_prompt(*arguments); }); });
}

}  // namespace accelopt::cli
