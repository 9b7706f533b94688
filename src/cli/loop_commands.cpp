// The AccelOpt loop's subcommands: optimize, resume, runs, show, export, memory. Each opens the
// workspace's database, wires task, platform, agents and store together, and prints.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>

#include "agents/llm_agents.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "common/error.h"
#include "common/files.h"
#include "llm/config.h"
#include "llm/ledger.h"
#include "llm/models.h"
#include "memory/memory.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/cpu/machine.h"
#include "report/progress.h"
#include "search/beam_search.h"
#include "search/config.h"
#include "search/selection.h"
#include "store/store.h"
#include "task/task.h"
#include "tuner/knobs.h"
#include "tuner/tuner_agents.h"

namespace accelopt::cli {
namespace {

constexpr const char* kDefaultWorkspace = ".accelopt";

struct OptimizeArguments {
  std::vector<std::string> task_directories;
  std::string config;
  std::string preset = "quick";
  std::string agents;  // tuner | llm | hybrid; empty: llm when a model is configured, else tuner
  std::string workload;
  std::string workspace = kDefaultWorkspace;
  std::string strategy;
  int iterations = -1;
  int64_t max_evaluations = -1;
  double max_wall_seconds = -1;
  int64_t seed = -1;
  std::string prompts;  // the user's prompt templates
  std::string kernel;   // the user's own kernel to start from; empty: the task's baseline
};

std::unique_ptr<store::Store> open_workspace(const std::string& workspace) {
  return store::Store::open(store::database_path(workspace));
}

std::unique_ptr<platform::cpu::CpuPlatform> make_platform() {
  platform::cpu::CpuPlatformOptions options;
  options.compiler.cpus = platform::cpu::compile_cpus();
  return std::make_unique<platform::cpu::CpuPlatform>(
      options, platform::cpu::load_or_probe_machine(false, &std::cerr));
}

// The agents of a run, owned here; the search borrows them.
struct Agents {
  tuner::TunerPlanner tuner_planner;
  tuner::TunerExecutor tuner_executor;
  tuner::TunerSummarizer tuner_summarizer;
  std::unique_ptr<store::StoreLedger> ledger;
  std::unique_ptr<llm::ModelSet> models;
  std::unique_ptr<roles::Planner> llm_planner;
  std::unique_ptr<roles::Executor> llm_executor;
  std::unique_ptr<roles::Fixer> llm_fixer;
  std::unique_ptr<roles::Summarizer> llm_summarizer;
  search::AgentSet set;
};

void check_mode(const std::string& mode) {
  if (mode != "tuner" && mode != "llm" && mode != "hybrid") {
    throw UserError(fmt::format("--agents: '{}' is not one of tuner, llm, hybrid", mode));
  }
}

// `config` and `prompts` matter for llm and hybrid: the model configuration and the user's
// templates. The ledger records model calls in `store` under `run_id`.
std::unique_ptr<Agents> make_agents(const std::string& mode, const std::string& config,
                                    const std::string& prompts, store::Store& store,
                                    int64_t run_id) {
  check_mode(mode);
  auto agents = std::make_unique<Agents>();
  if (mode == "tuner") {
    agents->set.planner = &agents->tuner_planner;
    agents->set.executor = &agents->tuner_executor;
    agents->set.summarizer = &agents->tuner_summarizer;
    agents->set.proposes = store::CandidateKind::kTuner;
    return agents;
  }
  if (config.empty()) {
    throw UserError(
        fmt::format("--agents {} needs a model: give --config FILE with [models] "
                    "(docs/llm.md), or use --agents tuner",
                    mode));
  }
  llm::LlmConfig llm_config = llm::load_llm_config(config);
  if (llm_config.models.empty()) {
    throw UserError(fmt::format("{}: no [models] configured; --agents {} needs one", config, mode));
  }
  agents->ledger = std::make_unique<store::StoreLedger>(store);
  llm::ModelSetOptions model_options;
  model_options.ledger = agents->ledger.get();
  model_options.run_id = std::to_string(run_id);
  agents->models = std::make_unique<llm::ModelSet>(std::move(llm_config), std::move(model_options));
  agents::LlmAgentOptions options;
  options.prompts_dir = prompts;
  options.structural_only = mode == "hybrid";
  agents->llm_planner = agents::make_llm_planner(*agents->models, options);
  agents->llm_executor = agents::make_llm_executor(*agents->models, options);
  agents->llm_fixer = agents::make_llm_fixer(*agents->models, options);
  agents->llm_summarizer = agents::make_llm_summarizer(*agents->models, options);
  agents->set.planner = agents->llm_planner.get();
  agents->set.executor = agents->llm_executor.get();
  agents->set.fixer = agents->llm_fixer.get();
  agents->set.summarizer = agents->llm_summarizer.get();
  if (mode == "hybrid") {
    agents->set.refine_planner = &agents->tuner_planner;
    agents->set.refine_executor = &agents->tuner_executor;
    agents->set.refine_summarizer = &agents->tuner_summarizer;
  }
  return agents;
}

bool model_configured(const std::string& config) {
  if (config.empty()) return false;
  return !llm::load_llm_config(config).models.empty();
}

std::string absolute_or_empty(const std::string& path) {
  return path.empty() ? std::string() : std::filesystem::absolute(path).string();
}

void print_summary(const search::RunSummary& summary) {
  std::cout << fmt::format("\n{:<10} {:>12} {:>12}\n", "kernel", "speedup", "% of peak");
  std::cout << fmt::format("{:<10} {:>11.2f}x {:>11.1f}%\n", "baseline", 1.0,
                           summary.baseline_percent_of_peak);
  std::cout << fmt::format("{:<10} {:>11.2f}x {:>11.1f}%\n", "best", summary.best_speedup,
                           summary.best_percent_of_peak);
  std::cout << fmt::format("run {}: {} ({} iterations, {} evaluations); see `accelopt show {}`\n",
                           summary.run_id, summary.state, summary.iterations_done,
                           summary.evaluations, summary.run_id);
  if (search::worth_resuming(summary.state)) {
    std::cout << fmt::format("continue it with `accelopt resume {}`\n", summary.run_id);
  }
}

// The exit code of a run that ended in `state`: 0 finished or stopped by a budget, 128 + the
// signal when interrupted, 1 failed.
int exit_code(const std::string& state, const StopOnSignals& signals) {
  if (state == "interrupted") return signals.exit_code();
  return state.rfind("failed", 0) == 0 ? 1 : 0;
}

// The tuner changes nothing but declared knobs: a kernel without any gets no candidate at all.
void check_tunable(const std::string& mode, const std::string& source) {
  if (mode == "tuner" && tuner::parse_knobs(source).empty()) {
    throw UserError(
        "this kernel declares no knobs; the tuner has nothing to change: see docs/knobs.md");
  }
}

int run_optimize(const OptimizeArguments& arguments) {
  std::vector<task::Task> tasks;  // all loaded first: a typo fails before any run starts
  for (const std::string& directory : arguments.task_directories) {
    tasks.push_back(task::load_task(directory));
  }
  search::SearchConfig config = search::preset(arguments.preset);
  if (!arguments.config.empty()) search::apply_config_file(config, arguments.config);
  if (!arguments.strategy.empty()) {
    if (arguments.strategy == "repeated-sampling") {
      config.strategy = search::Strategy::kRepeatedSampling;
    } else if (arguments.strategy == "beam") {
      config.strategy = search::Strategy::kBeam;
    } else {
      throw UserError("--strategy: choose beam or repeated-sampling");
    }
  }
  if (arguments.iterations >= 0) config.iterations = arguments.iterations;
  if (arguments.max_evaluations >= 0) config.max_evaluations = arguments.max_evaluations;
  if (arguments.max_wall_seconds >= 0) config.max_wall_seconds = arguments.max_wall_seconds;
  if (arguments.seed >= 0) config.seed = static_cast<uint64_t>(arguments.seed);
  std::string mode = arguments.agents;
  if (mode.empty()) {
    if (model_configured(arguments.config)) {
      mode = "llm";
    } else {
      mode = "tuner";
      std::cerr << "no model configured: optimizing with the built-in tuner (--agents tuner)\n";
    }
  }
  check_mode(mode);
  std::string start_kernel;
  if (!arguments.kernel.empty()) {
    if (tasks.size() != 1) throw UserError("--kernel: give one --task, the kernel's own");
    start_kernel = read_file(arguments.kernel);
  }
  for (const task::Task& task : tasks) {
    check_tunable(mode, start_kernel.empty() ? read_file(task.baseline_path()) : start_kernel);
  }
  auto store = open_workspace(arguments.workspace);
  auto platform = make_platform();
  report::ProgressPrinter progress(std::cerr, report::is_smart_terminal(STDERR_FILENO));
  std::vector<std::pair<std::string, search::RunSummary>> summaries;
  int code = 0;
  StopOnSignals signals;
  for (const task::Task& task : tasks) {
    if (signals.requested()) break;  // the tasks not started are not started
    search::SearchContext context;
    context.task = &task;
    context.platform = platform.get();
    context.store = store.get();
    context.events = &progress;
    context.interrupt = &signals.requested();
    Json extra{{"agents", mode},
               {"config_file", absolute_or_empty(arguments.config)},
               {"prompts", absolute_or_empty(arguments.prompts)}};
    int64_t run_id = search::create_run(config, arguments.workload, context, extra, start_kernel);
    std::unique_ptr<Agents> agents;
    try {
      agents = make_agents(mode, arguments.config, arguments.prompts, *store, run_id);
    } catch (const UserError& error) {
      store->set_run_state(run_id, std::string("failed: ") + error.what());
      throw;
    }
    context.agents = agents->set;
    if (agents->models) {
      llm::ModelSet* models = agents->models.get();
      context.spend_usd = [models] { return models->budget().spent().usd; };
    }
    if (tasks.size() > 1) std::cerr << fmt::format("== {} ==\n", task.name);
    search::RunSummary summary = search::run_created(run_id, context);
    code = std::max(code, exit_code(summary.state, signals));
    summaries.emplace_back(task.name, summary);
  }
  if (summaries.size() == 1) {
    print_summary(summaries[0].second);
    return code;
  }
  // Several tasks: one table, percentage of peak before and after, and the geometric means.
  std::cout << fmt::format("\n{:<24} {:>5} {:>10} {:>10} {:>9}  {}\n", "task", "run", "baseline %",
                           "best %", "speedup", "state");
  double log_before = 0, log_after = 0;
  int counted = 0;
  for (const auto& [name, summary] : summaries) {
    std::cout << fmt::format("{:<24} {:>5} {:>9.1f}% {:>9.1f}% {:>8.2f}x  {}\n", name,
                             summary.run_id, summary.baseline_percent_of_peak,
                             summary.best_percent_of_peak, summary.best_speedup, summary.state);
    if (summary.baseline_percent_of_peak > 0 && summary.best_percent_of_peak > 0) {
      log_before += std::log(summary.baseline_percent_of_peak);
      log_after += std::log(summary.best_percent_of_peak);
      ++counted;
    }
  }
  if (counted > 0) {
    std::cout << fmt::format("{:<24} {:>5} {:>9.1f}% {:>9.1f}%\n", "geometric mean", "",
                             std::exp(log_before / counted), std::exp(log_after / counted));
  }
  return code;
}

int run_resume(int64_t run_id, const std::string& workspace, int more_iterations) {
  auto store = open_workspace(workspace);
  auto record = store->run(run_id);
  if (!record) throw UserError(fmt::format("there is no run {} in {}", run_id, workspace));
  task::Task task = task::load_task(record->config.at("task_directory").get<std::string>());
  auto agents =
      make_agents(record->config.value("agents", "tuner"), record->config.value("config_file", ""),
                  record->config.value("prompts", ""), *store, run_id);
  auto platform = make_platform();
  report::ProgressPrinter progress(std::cerr, report::is_smart_terminal(STDERR_FILENO));
  search::SearchContext context;
  context.task = &task;
  context.platform = platform.get();
  context.store = store.get();
  context.agents = agents->set;
  context.events = &progress;
  if (agents->models) {
    llm::ModelSet* models = agents->models.get();
    context.spend_usd = [models] { return models->budget().spent().usd; };
  }
  StopOnSignals signals;
  context.interrupt = &signals.requested();
  search::RunSummary summary = search::resume_run(run_id, context, more_iterations);
  print_summary(summary);
  return exit_code(summary.state, signals);
}

int run_runs(const std::string& workspace) {
  auto store = open_workspace(workspace);
  auto runs = store->runs();
  if (runs.empty()) {
    std::cout << "no runs in " << workspace << "\n";
    return 0;
  }
  std::cout << fmt::format("{:>4}  {:<16} {:<8} {:<7} {:<7} {:>5} {:>9} {:<24} {}\n", "run", "task",
                           "workload", "agents", "preset", "iter", "best", "updated", "state");
  for (const auto& run : runs) {
    auto checkpoints = store->checkpoints(run.id);
    std::string best = "-";
    if (!checkpoints.empty() && !checkpoints.back().state["beam"].empty()) {
      std::vector<search::Scored> beam;
      for (const Json& id : checkpoints.back().state["beam"]) {
        if (auto trace = store->trace(id.get<int64_t>()))
          beam.push_back({id.get<int64_t>(), trace->verdict});
      }
      if (!beam.empty())
        best = fmt::format("{:.2f}x", search::rank_value(search::fastest(beam).verdict));
    }
    std::cout << fmt::format(
        "{:>4}  {:<16} {:<8} {:<7} {:<7} {:>5} {:>9} {:<24} {}\n", run.id,
        run.config.value("task", "?"), run.config.value("workload", "?"),
        run.config.value("agents", "?"), run.config["search"].value("preset", "?"),
        checkpoints.empty() ? 0 : checkpoints.back().iteration, best, run.updated_at, run.state);
  }
  return 0;
}

struct RunView {
  store::RunRecord run;
  std::vector<store::CandidateRecord> candidates;
  std::map<int64_t, store::TraceRecord> traces;
  std::map<int64_t, const store::CandidateRecord*> by_id;
  std::vector<store::Checkpoint> checkpoints;
  std::vector<search::Scored> final_beam;
};

RunView load_run(store::Store& store, int64_t run_id) {
  RunView view;
  auto run = store.run(run_id);
  if (!run)
    throw UserError(
        fmt::format("there is no run {} in this workspace (see `accelopt runs`)", run_id));
  view.run = *run;
  view.candidates = store.candidates(run_id);
  for (auto& trace : store.traces(run_id)) view.traces[trace.candidate_id] = trace;
  for (const auto& candidate : view.candidates) view.by_id[candidate.id] = &candidate;
  view.checkpoints = store.checkpoints(run_id);
  if (!view.checkpoints.empty()) {
    for (const Json& id : view.checkpoints.back().state["beam"]) {
      auto found = view.traces.find(id.get<int64_t>());
      if (found != view.traces.end())
        view.final_beam.push_back({found->first, found->second.verdict});
    }
    std::sort(view.final_beam.begin(), view.final_beam.end(), [](const auto& a, const auto& b) {
      return search::rank_value(a.verdict) > search::rank_value(b.verdict);
    });
  }
  return view;
}

std::string describe_candidate(const RunView& view, int64_t id) {
  auto found = view.by_id.find(id);
  if (found == view.by_id.end()) return fmt::format("#{}", id);
  const auto& candidate = *found->second;
  std::string plan = candidate.plan.value("text", "");
  if (plan.size() > 60) plan = plan.substr(0, 57) + "...";
  return fmt::format("#{} {} ({}: {})", id, store::kind_name(candidate.kind), candidate.author,
                     plan);
}

std::string verdict_figures(const kernel::Verdict& verdict) {
  if (!verdict.passed()) return std::string(kernel::status_name(verdict.status));
  std::string figures;
  if (verdict.timing) {
    figures = fmt::format("{:.2f}x [{:.2f}, {:.2f}]", verdict.timing->speedup,
                          verdict.timing->speedup_low, verdict.timing->speedup_high);
  }
  if (verdict.roofline)
    figures += fmt::format("  {:.1f}% of peak", verdict.roofline->percent_of_peak);
  return figures;
}

int run_show(int64_t run_id, const std::string& workspace) {
  auto store = open_workspace(workspace);
  RunView view = load_run(*store, run_id);
  const Json& config = view.run.config;
  std::cout << fmt::format("run {}  task {} (workload {})  agents {}  preset {}  strategy {}\n",
                           run_id, config.value("task", "?"), config.value("workload", "?"),
                           config.value("agents", "?"), config["search"].value("preset", "?"),
                           config["search"].value("strategy", "?"));
  std::cout << fmt::format("state {}  created {}  updated {}\n\n", view.run.state,
                           view.run.created_at, view.run.updated_at);

  auto entries = store->memory_entries();
  std::cout << fmt::format("{:>9} {:>10} {:>7} {:>8} {:>9} {:>15} {:>7}\n", "iteration",
                           "candidates", "failed", "reused", "best", "best % of peak", "memory");
  for (const auto& checkpoint : view.checkpoints) {
    int count = 0, failed = 0, reused = 0;
    for (const auto& candidate : view.candidates) {
      if (candidate.iteration != checkpoint.iteration) continue;
      ++count;
      const auto& trace = view.traces.at(candidate.id);
      if (!trace.verdict.passed()) ++failed;
      if (trace.reused_from) ++reused;
    }
    std::vector<search::Scored> beam;
    for (const Json& id : checkpoint.state["beam"]) {
      auto found = view.traces.find(id.get<int64_t>());
      if (found != view.traces.end()) beam.push_back({found->first, found->second.verdict});
    }
    int made =
        static_cast<int>(std::count_if(entries.begin(), entries.end(), [&](const auto& entry) {
          return entry.run_id == run_id && entry.iteration == checkpoint.iteration;
        }));
    double best = beam.empty() ? 0 : search::rank_value(search::fastest(beam).verdict);
    double percent = 0;
    if (!beam.empty() && search::fastest(beam).verdict.roofline) {
      percent = search::fastest(beam).verdict.roofline->percent_of_peak;
    }
    std::cout << fmt::format("{:>9} {:>10} {:>7} {:>8} {:>8.2f}x {:>14.1f}% {:>7}\n",
                             checkpoint.iteration, count, failed, reused, best, percent, made);
  }

  std::cout << "\nbest kernels (the final beam)\n";
  for (const auto& kernel : view.final_beam) {
    std::cout << fmt::format("  {}  {}\n", verdict_figures(kernel.verdict),
                             describe_candidate(view, kernel.candidate));
  }
  if (!view.final_beam.empty()) {
    std::cout << "\nlineage of the best\n";
    std::optional<int64_t> id = view.final_beam.front().candidate;
    std::string indent = "  ";
    while (id) {
      auto found = view.by_id.find(*id);
      if (found == view.by_id.end()) break;
      std::cout << fmt::format("{}{}  {}\n", indent, describe_candidate(view, *id),
                               verdict_figures(view.traces.at(*id).verdict));
      id = found->second->parent;
      indent = "  <- ";
    }
  }

  std::cout << "\nmemory entries made\n";
  int made = 0;
  for (const auto& entry : entries) {
    if (entry.run_id != run_id) continue;
    ++made;
    std::cout << fmt::format("  #{} it {} {} {}  (#{} -> #{})\n", entry.id, entry.iteration,
                             entry.positive ? "+" : "-", entry.insight.value("title", ""),
                             entry.slow_candidate, entry.fast_candidate);
  }
  if (made == 0) std::cout << "  none\n";

  std::cout << "\ncost by role\n";
  auto calls = store->calls(std::to_string(run_id));
  if (calls.empty()) {
    std::cout << "  no model calls (tuner agents)\n";
  } else {
    for (const auto& [role, totals] : llm::totals_by_role(calls)) {
      std::cout << fmt::format("  {:<11} {:>5} calls {:>9} tokens  ${:.4f}\n", role, totals.calls,
                               totals.prompt_tokens + totals.completion_tokens, totals.cost_usd);
    }
    auto all = llm::total(calls);
    std::cout << fmt::format("  {:<11} {:>5} calls {:>9} tokens  ${:.4f}\n", "total", all.calls,
                             all.prompt_tokens + all.completion_tokens, all.cost_usd);
  }
  return 0;
}

int run_export(int64_t run_id, const std::string& workspace, const std::string& out) {
  auto store = open_workspace(workspace);
  RunView view = load_run(*store, run_id);
  std::filesystem::path directory(out);
  std::error_code error;
  std::filesystem::create_directories(directory / "kernels", error);
  if (error) throw UserError(fmt::format("creating {}: {}", directory.string(), error.message()));
  int rank = 0;
  Json best = Json::array();
  for (const auto& kernel : view.final_beam) {
    const auto& candidate = *view.by_id.at(kernel.candidate);
    std::string name = fmt::format("{}_c{}.cpp", ++rank, candidate.id);
    write_file_atomic(directory / "kernels" / name, candidate.source);
    if (rank == 1) write_file_atomic(directory / "best.cpp", candidate.source);
    best.push_back(Json{{"file", "kernels/" + name},
                        {"candidate", candidate.id},
                        {"verdict", kernel.verdict.to_json()}});
  }
  Json traces = Json::array();
  for (const auto& candidate : view.candidates) {
    const auto& trace = view.traces.at(candidate.id);
    traces.push_back(
        Json{{"candidate", candidate.id},
             {"key", candidate.key},
             {"parent", candidate.parent ? Json(*candidate.parent) : Json(nullptr)},
             {"iteration", candidate.iteration},
             {"kind", store::kind_name(candidate.kind)},
             {"author", candidate.author},
             {"plan", candidate.plan},
             {"source_hash", candidate.source_hash},
             {"reused_from", trace.reused_from ? Json(*trace.reused_from) : Json(nullptr)},
             {"verdict", trace.verdict.to_json()}});
  }
  write_file_atomic(directory / "traces.json", traces.dump(2) + "\n");
  Json run{{"run", run_id}, {"state", view.run.state}, {"config", view.run.config}, {"best", best}};
  write_file_atomic(directory / "run.json", run.dump(2) + "\n");
  std::cout << fmt::format("exported run {}: {} kernels, {} traces to {}\n", run_id, best.size(),
                           traces.size(), directory.string());
  return 0;
}

Json entry_json(const store::MemoryEntryRecord& entry) {
  return Json{{"id", entry.id},
              {"run", entry.run_id},
              {"task", entry.task},
              {"op_type", entry.op_type},
              {"tags", entry.tags},
              {"knobs", entry.knobs},
              {"slow_candidate", entry.slow_candidate},
              {"fast_candidate", entry.fast_candidate},
              {"positive", entry.positive},
              {"speedup", entry.speedup},
              {"speedup_low", entry.speedup_low},
              {"speedup_high", entry.speedup_high},
              {"iteration", entry.iteration},
              {"insight", entry.insight},
              {"created_at", entry.created_at}};
}

int run_memory(const std::string& action, const std::string& argument, const std::string& task,
               const std::string& workspace) {
  auto store = open_workspace(workspace);
  if (action == "list") {
    int shown = 0;
    for (const auto& entry : store->memory_entries()) {
      if (!task.empty() && entry.task != task) continue;
      ++shown;
      std::cout << fmt::format("#{:<5} {:<14} run {:<3} {} {:.2f}x  {}\n", entry.id, entry.task,
                               entry.run_id, entry.positive ? "+" : "-", entry.speedup,
                               entry.insight.value("title", ""));
    }
    if (shown == 0) std::cout << "the memory is empty\n";
    return 0;
  }
  if (action == "show") {
    int64_t id = 0;
    try {
      id = std::stoll(argument);
    } catch (const std::exception&) {
      throw UserError("memory show: give an entry id (see `accelopt memory list`)");
    }
    auto entry = store->memory_entry(id);
    if (!entry) throw UserError(fmt::format("memory show: there is no entry #{}", id));
    std::cout << entry_json(*entry).dump(2) << "\n";
    return 0;
  }
  if (action == "export") {
    if (argument.empty()) throw UserError("memory export: give a FILE to write");
    Json all = Json::array();
    for (const auto& entry : store->memory_entries()) {
      if (task.empty() || entry.task == task) all.push_back(entry_json(entry));
    }
    write_file_atomic(
        argument,
        Json{{"format", "accelopt-memory"}, {"version", 1}, {"entries", all}}.dump(2) + "\n");
    std::cout << fmt::format("exported {} entries to {}\n", all.size(), argument);
    return 0;
  }
  if (action == "import") {
    if (argument.empty()) throw UserError("memory import: give a FILE to read");
    Json file;
    try {
      file = Json::parse(read_file(argument));
    } catch (const Json::exception& error) {
      throw UserError(fmt::format("{}: not JSON: {}", argument, error.what()));
    }
    if (file.value("format", "") != "accelopt-memory") {
      throw UserError(fmt::format("{}: not an accelopt memory export", argument));
    }
    std::vector<store::MemoryEntryRecord> entries;
    for (const Json& json : file.at("entries")) {
      store::MemoryEntryRecord entry;
      entry.run_id = 0;  // imported: no run of this workspace made it
      entry.task = json.at("task").get<std::string>();
      entry.op_type = json.value("op_type", "");
      entry.tags = json.value("tags", std::vector<std::string>{});
      entry.knobs = json.value("knobs", std::vector<std::string>{});
      entry.slow_candidate = json.value("slow_candidate", int64_t{0});
      entry.fast_candidate = json.value("fast_candidate", int64_t{0});
      entry.positive = json.value("positive", true);
      entry.speedup = json.value("speedup", 1.0);
      entry.speedup_low = json.value("speedup_low", entry.speedup);
      entry.speedup_high = json.value("speedup_high", entry.speedup);
      entry.iteration = json.value("iteration", 0);
      entry.insight = json.value("insight", Json::object());
      entry.insight["detail"]["imported_from"] = argument;
      entries.push_back(std::move(entry));
    }
    int64_t added = memory::import_entries(*store, entries);
    std::cout << fmt::format("imported {} entries ({} already in the memory)\n", added,
                             static_cast<int64_t>(entries.size()) - added);
    return 0;
  }
  if (action == "clear") {
    int64_t removed = store->clear_memory(task);
    std::cout << fmt::format("removed {} entries\n", removed);
    return 0;
  }
  throw UserError(fmt::format("memory: unknown action '{}'", action));
}

}  // namespace

void register_loop_commands(CLI::App& app, CommandTable& table) {
  auto optimize_arguments = std::make_shared<OptimizeArguments>();
  auto* optimize =
      app.add_subcommand("optimize", "Optimize a task's kernel with the AccelOpt loop");
  optimize
      ->add_option("--task", optimize_arguments->task_directories,
                   "task directory (repeat, or give several, for one run each)")
      ->required();
  optimize->add_option("--config", optimize_arguments->config, "TOML configuration file");
  optimize->add_option("--preset", optimize_arguments->preset, "quick or paper")
      ->capture_default_str();
  optimize->add_option(
      "--agents", optimize_arguments->agents,
      "tuner, llm or hybrid (default: llm when a model is configured, else tuner)");
  optimize->add_option("--workload", optimize_arguments->workload,
                       "workload (default: the task's default)");
  optimize->add_option("--workspace", optimize_arguments->workspace, "workspace directory")
      ->capture_default_str();
  optimize->add_option("--strategy", optimize_arguments->strategy, "beam or repeated-sampling");
  optimize->add_option("--iterations", optimize_arguments->iterations, "override the preset's T");
  optimize->add_option("--max-evaluations", optimize_arguments->max_evaluations,
                       "evaluation budget");
  optimize->add_option("--max-wall-seconds", optimize_arguments->max_wall_seconds,
                       "wall-time budget");
  optimize->add_option("--seed", optimize_arguments->seed, "the search's seed");
  optimize->add_option("--prompts", optimize_arguments->prompts,
                       "a folder of your own prompt templates (llm, hybrid)");
  optimize->add_option("--kernel", optimize_arguments->kernel,
                       "start from your own kernel FILE instead of the task's baseline (one task)");
  optimize->callback([&table, optimize_arguments] {
    table.select([optimize_arguments] { return run_optimize(*optimize_arguments); });
  });

  auto run_id = std::make_shared<int64_t>(0);
  auto workspace = std::make_shared<std::string>(kDefaultWorkspace);
  auto out = std::make_shared<std::string>();
  auto more_iterations = std::make_shared<int>(0);
  auto* resume = app.add_subcommand(
      "resume", "Continue a run that was interrupted, stopped or failed; or extend a finished one");
  resume->add_option("RUN", *run_id, "run id (see `accelopt runs`)")->required();
  resume->add_option("--workspace", *workspace, "workspace directory")->capture_default_str();
  resume->add_option("--iterations", *more_iterations,
                     "run N more iterations after the last one done (a finished run too)");
  resume->callback([&table, run_id, workspace, more_iterations] {
    table.select([run_id, workspace, more_iterations] {
      return run_resume(*run_id, *workspace, *more_iterations);
    });
  });

  auto* runs = app.add_subcommand("runs", "List the runs of a workspace");
  runs->add_option("--workspace", *workspace, "workspace directory")->capture_default_str();
  runs->callback(
      [&table, workspace] { table.select([workspace] { return run_runs(*workspace); }); });

  auto* show = app.add_subcommand(
      "show", "The story of a run: iterations, best kernels, lineage, memory, cost");
  show->add_option("RUN", *run_id, "run id")->required();
  show->add_option("--workspace", *workspace, "workspace directory")->capture_default_str();
  show->callback([&table, run_id, workspace] {
    table.select([run_id, workspace] { return run_show(*run_id, *workspace); });
  });

  auto* export_command = app.add_subcommand("export", "Write a run's best kernels and its traces");
  export_command->add_option("RUN", *run_id, "run id")->required();
  export_command->add_option("--out", *out, "output directory")->required();
  export_command->add_option("--workspace", *workspace, "workspace directory")
      ->capture_default_str();
  export_command->callback([&table, run_id, workspace, out] {
    table.select([run_id, workspace, out] { return run_export(*run_id, *workspace, *out); });
  });

  auto action = std::make_shared<std::string>();
  auto argument = std::make_shared<std::string>();
  auto task = std::make_shared<std::string>();
  auto* memory = app.add_subcommand(
      "memory", "The optimization memory: list|show ID|export FILE|import FILE|clear");
  memory->add_option("ACTION", *action, "list, show, export, import or clear")
      ->required()
      ->check(CLI::IsMember({"list", "show", "export", "import", "clear"}));
  memory->add_option("ARG", *argument, "entry id (show) or file (export, import)");
  memory->add_option("--task", *task, "only this task's entries (list, export, clear)");
  memory->add_option("--workspace", *workspace, "workspace directory")->capture_default_str();
  memory->callback([&table, action, argument, task, workspace] {
    table.select([action, argument, task, workspace] {
      return run_memory(*action, *argument, *task, *workspace);
    });
  });
}

}  // namespace accelopt::cli
