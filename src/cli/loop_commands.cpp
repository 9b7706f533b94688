// optimize and resume: wire task, platform, agents and store together into a search and print its
// summary (report/run_summary_text.h). The configuration file is read once (ConfigFile); one
// function (make_context) builds the search's context for both commands. To add a flag: a field in
// OptimizeArguments (or ResumeArguments), a line in its add_*_flags, and its use in run_optimize
// (or run_resume).
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>

#include "agents/llm_agents.h"
#include "cli/agent_setup.h"
#include "cli/commands.h"
#include "cli/run_steps.h"
#include "cli/signals.h"
#include "cli/workspace.h"
#include "common/error.h"
#include "common/files.h"
#include "kernel/knobs.h"
#include "llm/commands.h"
#include "llm/config.h"
#include "llm/models.h"
#include "platform/core_sets.h"
#include "platform/registry.h"
#include "queue/remote_platform.h"
#include "report/progress.h"
#include "report/run_summary_text.h"
#include "roles/roles.h"
#include "search/beam_search.h"
#include "search/config.h"
#include "search/run_settings.h"
#include "store/store.h"
#include "task/baseline_stub.h"
#include "task/task.h"
#include "tuner/tuner_agents.h"

namespace accelopt::cli {
namespace {

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
  int eval_concurrency = -1;
  std::string prompts;  // the user's prompt templates
  std::string kernel;   // the user's own kernel to start from; empty: the task's baseline
  std::string platform = "cpu";
  bool remote_workers = false;  // enqueue evaluations for `accelopt worker`s instead of evaluating
  // A task without a baseline: write the naive kernel the run started from as its baseline.cpp.
  bool save_baseline = false;
  bool remeasure_baseline = false;  // search/kept_baseline.h
};

struct ResumeArguments {
  int64_t run_id = 0;
  std::string workspace = kDefaultWorkspace;
  int more_iterations = 0;  // a finished run: this many more iterations
};

// The agents of a run, owned here; the search borrows them.
struct Agents {
  tuner::TunerAgents tuner;
  std::unique_ptr<store::StoreLedger> ledger;
  std::unique_ptr<llm::ModelSet> models;
  agents::LlmAgents llm;
  search::AgentSet set;
};

// The LLM agents (llm, hybrid) need a model in the configuration file.
void check_models_configured(const std::string& mode, const ConfigFile& config) {
  if (mode == "tuner") return;
  if (config.path.empty()) {
    throw UserError(
        fmt::format("--agents {} needs a model: give --config FILE with [models] "
                    "(docs/llm.md), or use --agents tuner",
                    mode));
  }
  if (!config.has_models()) {
    throw UserError(
        fmt::format("{}: no [models] configured; --agents {} needs one", config.path, mode));
  }
}

// The LLM agents (llm, hybrid) record their model calls in `store` under `run_id`.
std::unique_ptr<Agents> make_agents(const std::string& mode, const ConfigFile& config,
                                    const search::SearchConfig& search, const std::string& prompts,
                                    const platform::BuiltPlatform& platform, store::Store& store,
                                    int64_t run_id) {
  check_mode(mode);
  auto agents = std::make_unique<Agents>();
  if (mode == "tuner") {
    static_cast<roles::RoleAgents&>(agents->set) = agents->tuner.roles();
    agents->set.proposes = store::CandidateKind::kTuner;
    return agents;
  }
  check_models_configured(mode, config);
  agents->ledger = std::make_unique<store::StoreLedger>(store);
  llm::ModelSetOptions model_options;
  model_options.ledger = agents->ledger.get();
  model_options.run_id = std::to_string(run_id);
  agents->models = std::make_unique<llm::ModelSet>(config.llm, std::move(model_options));
  agents->llm =
      agents::make_llm_agents(*agents->models, llm_agent_options(mode, prompts, platform, search));
  static_cast<roles::RoleAgents&>(agents->set) = agents->llm.roles();
  agents->set.baseline_writer = agents->llm.baseline_writer.get();
  if (mode == "hybrid") {
    agents->set.refine_planner = &agents->tuner.planner;
    agents->set.refine_executor = &agents->tuner.executor;
    agents->set.refine_summarizer = &agents->tuner.summarizer;
  }
  return agents;
}

// Pings the run's models before it starts (as `llm ping` does), so that a closed port or an
// unknown model is a clear error now rather than a run that fails call by call. A replayed run
// needs no server.
// Returns the pings' ledger records, for book_preflight once the run they precede is known.
std::vector<llm::CallRecord> check_models_answer(const std::string& mode,
                                                 const ConfigFile& config) {
  if (mode == "tuner" || !config.has_models()) return {};
  if (config.llm.replay.mode == llm::ReplayMode::kReplay) return {};
  std::string problems;
  std::vector<llm::CallRecord> calls;
  for (const llm::ModelCheck& check : llm::check_models(config.llm)) {
    if (!check.reachable) problems += fmt::format("\n  {}: {}", check.model, check.error);
    calls.insert(calls.end(), check.calls.begin(), check.calls.end());
  }
  if (!problems.empty()) {
    throw UserError(
        fmt::format("the models of {} do not answer:{}\nstart the server (or fix "
                    "[models]) and try again; `accelopt llm ping --config {}` checks",
                    config.path, problems, config.path));
  }
  return calls;
}

// The preflight's calls in the run's ledger: every call the server saw is in the ledger.
void book_preflight(store::Store& store, int64_t run_id, std::vector<llm::CallRecord>& calls) {
  store::StoreLedger ledger(store);
  for (llm::CallRecord call : calls) {
    call.run_id = std::to_string(run_id);
    ledger.record(call);
  }
  calls.clear();  // a command's later runs did not wait on them
}

// What every run of one command shares: the database, the platform and the progress line.
struct Workbench {
  std::unique_ptr<store::Store> store;
  platform::BuiltPlatform platform;  // set once the task's platform is known
  report::ProgressPrinter progress{std::cerr, report::is_smart_terminal(STDERR_FILENO)};
};

std::unique_ptr<Workbench> open_workbench(const std::string& workspace, Access access) {
  auto bench = std::make_unique<Workbench>();
  bench->store = open_workspace(workspace, access);
  return bench;
}

// With --remote-workers the kernels go to the database's evaluation queue, where `accelopt worker
// --platform P` processes on other hosts take them; only a PostgreSQL database has a queue.
void check_remote_workers(const std::string& workspace) {
  if (!store::is_postgres_url(workspace)) {
    throw UserError(
        "--remote-workers needs a shared PostgreSQL database: give --db postgresql://… (the "
        "workers take their evaluations from its queue; docs/scale-out.md)");
  }
}

void use_remote_workers(Workbench& bench, const std::string& workspace,
                        const platform::PlatformChoice& platform) {
  check_remote_workers(workspace);
  queue::RemotePlatformOptions options;
  options.url = workspace;
  options.platform = platform.value;
  bench.platform.platform = std::make_unique<queue::RemotePlatform>(options);
  bench.platform.description = platform::remote_description(platform);
  bench.platform.prompt_fragment = platform.prompt_fragment;
}

void use_platform(Workbench& bench, const platform::PlatformChoice& platform) {
  bench.platform = platform::make_platform(platform, {.progress = &std::cerr});
}

// What a run records of the machine that evaluates it (RunSettings::machine): the platform's facts
// by label. Remote workers' machines are not known here.
Json machine_facts(const Workbench& bench, bool remote_workers) {
  Json facts = Json::object();
  if (remote_workers) return facts;
  for (const auto& [label, value] : bench.platform.description.facts) facts[label] = value;
  return facts;
}

// A search that throws (the database unreachable past its reconnection window, say) leaves its run
// "failed: why", resumable, rather than "running"; best effort, since the database may be gone.
template <typename Search>
search::RunSummary ending_failed_on_error(store::Store& store, int64_t run_id, Search&& run) {
  try {
    return run();
  } catch (const std::exception& error) {
    try {
      store.set_run_state(run_id, std::string("failed: ") + error.what());
    } catch (const std::exception&) {  // nothing more can be recorded; the error says why
    }
    throw;
  }
}

// The one place a search's context is built, for optimize and resume alike.
search::SearchContext make_context(const task::Task& task, Workbench& bench, const Agents& agents,
                                   const StopOnSignals& signals) {
  search::SearchContext context;
  context.interrupt = &signals.requested();
  context.task = &task;
  context.platform = &bench.platform.get();
  context.store = bench.store.get();
  context.events = &bench.progress;
  context.agents = agents.set;
  if (agents.models) {
    llm::ModelSet* models = agents.models.get();
    context.spend_usd = [models] { return models->budget().spent().usd; };
  }
  return context;
}

// The evaluations a run makes at once: fixed slots, or a count that follows the workers.
struct EvaluationPlaces {
  std::vector<std::vector<int>> slots;  // SearchContext::eval_slots
  std::function<int()> places_now;      // SearchContext::eval_places
};

// eval_concurrency, or when it is 0 one here and, with remote workers, as many as are connected
// at each moment (at least one), so that workers arriving after the run starts are used. Here each
// evaluation gets cores of its own (platform/core_sets.h); the workers' evaluations are theirs to
// place.
EvaluationPlaces evaluation_places(const search::SearchConfig& config, const task::Task& task,
                                   Workbench& bench, bool remote_workers,
                                   const platform::PlatformChoice& platform) {
  int concurrency = config.eval_concurrency;
  EvaluationPlaces places;
  if (remote_workers) {
    auto* remote = dynamic_cast<queue::RemotePlatform*>(&bench.platform.get());
    if (concurrency > 0 || remote == nullptr) {
      places.slots.resize(static_cast<size_t>(std::max(1, concurrency)));
      return places;
    }
    places.places_now = [remote] {
      return static_cast<int>(std::max<int64_t>(1, remote->live_workers()));
    };
    int64_t live = remote->live_workers();
    std::cerr << fmt::format(
        "{} `accelopt worker --platform {}` connected: up to {} evaluation{} at once now, as many "
        "as are connected as they come and go (eval_concurrency)\n",
        live, platform.value, std::max<int64_t>(1, live), live > 1 ? "s" : "");
    return places;
  }
  if (concurrency <= 1) return places;
  if (platform.name != "cpu") {
    throw UserError(fmt::format(
        "eval_concurrency {}: evaluations run at once on the cpu platform here, or on workers "
        "(--remote-workers); --platform {} evaluates one at a time",
        concurrency, platform.value));
  }
  places.slots = platform::evaluation_cores(concurrency, task.threads);
  return places;
}

// The exit code of a run that ended in `state`: 0 finished or stopped by a budget, 128 + the
// signal when interrupted, kExitMachineBusy stopped by a busy machine, 1 failed.
int exit_code(const std::string& state, const StopOnSignals& signals) {
  if (state == "interrupted") return signals.exit_code();
  if (search::stopped_by_busy_machine(state)) return kExitMachineBusy;
  return state.rfind("failed", 0) == 0 ? 1 : 0;
}

// The tuner changes nothing but declared knobs: a kernel without any gets no candidate at all.
void check_tunable(const std::string& mode, const std::string& source) {
  if (mode == "tuner" && kernel::parse_knobs(source).empty()) {
    throw UserError(
        "this kernel declares no knobs; the tuner has nothing to change: see docs/knobs.md");
  }
}

// A task without a baseline (its baseline is import's stub) starts from a naive kernel the executor
// writes; the tuner writes none.
void check_has_baseline(const std::string& mode, const task::Task& task) {
  if (mode == "tuner" && task::is_baseline_stub(read_file(task.baseline_path()))) {
    throw UserError(task::baseline_stub_message(task.baseline_path()));
  }
}

// --save-baseline: the kernel a run of a task without a baseline started from becomes the task's
// baseline file; a task with one of its own is left as it is.
void save_baseline(const store::Store& store, const task::Task& task,
                   const search::RunSummary& summary) {
  if (!task::is_baseline_stub(read_file(task.baseline_path()))) {
    std::cerr << fmt::format("--save-baseline: {} is the task's own baseline; left as it is\n",
                             task.baseline_path().string());
    return;
  }
  auto baseline =
      summary.baseline_candidate > 0 ? store.candidate(summary.baseline_candidate) : std::nullopt;
  if (!baseline || task::is_baseline_stub(baseline->source)) {
    std::cerr << fmt::format("--save-baseline: run {} has no naive baseline to save ({})\n",
                             summary.run_id, summary.state);
    return;
  }
  write_file_atomic(task.baseline_path(), baseline->source);
  std::cerr << fmt::format("wrote {}: the naive baseline run {} started from\n",
                           task.baseline_path().string(), summary.run_id);
}

// The preset, then the file's [search] and [memory] tables, then the flags.
search::SearchConfig search_config(const OptimizeArguments& arguments, const ConfigFile& file) {
  search::SearchConfig config = search::preset(arguments.preset);
  if (!file.path.empty()) search::apply_config_text(config, file.text, file.path);
  if (arguments.strategy == "repeated-sampling") {
    config.strategy = search::Strategy::kRepeatedSampling;
  } else if (arguments.strategy == "beam") {
    config.strategy = search::Strategy::kBeam;
  } else if (!arguments.strategy.empty()) {
    throw UserError("--strategy: choose beam or repeated-sampling");
  }
  if (arguments.iterations >= 0) config.iterations = arguments.iterations;
  if (arguments.max_evaluations >= 0) config.max_evaluations = arguments.max_evaluations;
  if (arguments.max_wall_seconds >= 0) config.max_wall_seconds = arguments.max_wall_seconds;
  if (arguments.seed >= 0) config.seed = static_cast<uint64_t>(arguments.seed);
  if (arguments.eval_concurrency >= 0) config.eval_concurrency = arguments.eval_concurrency;
  return config;
}

std::string agents_mode(const OptimizeArguments& arguments, const ConfigFile& file) {
  if (!arguments.agents.empty()) {
    check_mode(arguments.agents);
    return arguments.agents;
  }
  if (file.has_models()) return "llm";
  std::cerr << "no model configured: optimizing with the built-in tuner (--agents tuner)\n";
  return "tuner";
}

// One new run of `task`, as optimize starts it: recorded, `created` told its id (may be empty),
// its agents made, then run to its end.
search::RunSummary start_new_run(Workbench& bench, const task::Task& task,
                                 search::RunSettings settings, const ConfigFile& file,
                                 const std::string& prompts, const StopOnSignals& signals,
                                 const std::function<void(store::Store&, int64_t)>& created,
                                 std::vector<llm::CallRecord>& preflight) {
  // Before the run is recorded: too many evaluations for this machine's cores is refused here.
  EvaluationPlaces places = evaluation_places(settings.search, task, bench, settings.remote_workers,
                                              platform::parse_platform_choice(settings.platform));
  search::SearchContext creating;
  creating.task = &task;
  creating.store = bench.store.get();
  std::string mode = settings.agents;
  search::SearchConfig config = settings.search;
  settings.machine = machine_facts(bench, settings.remote_workers);
  int64_t run_id = search::create_run(std::move(settings), creating);
  book_preflight(*bench.store, run_id, preflight);
  std::unique_ptr<Agents> agents;
  try {
    if (created) created(*bench.store, run_id);
    agents = make_agents(mode, file, config, prompts, bench.platform, *bench.store, run_id);
  } catch (const UserError& error) {
    bench.store->set_run_state(run_id, std::string("failed: ") + error.what());
    throw;
  }
  search::SearchContext context = make_context(task, bench, *agents, signals);
  context.eval_slots = std::move(places.slots);
  context.eval_places = std::move(places.places_now);
  return ending_failed_on_error(*bench.store, run_id,
                                [&] { return search::run_created(run_id, context); });
}

// Resumes `run_id` of `bench`'s database with the settings it was started with (and
// `more_iterations` more, for a finished run).
search::RunSummary resume_stored_run(Workbench& bench, const std::string& workspace, int64_t run_id,
                                     const StopOnSignals& signals, int more_iterations) {
  auto record = bench.store->run(run_id);
  if (!record) {
    throw UserError(fmt::format("there is no run {} in {}", run_id, store::redact_url(workspace)));
  }
  search::RunSettings settings = search::RunSettings::from_json(record->config);
  platform::PlatformChoice platform = platform::parse_platform_choice(settings.platform);
  task::Task task = task::load_task(settings.task_directory, platform.kernel_extension);
  if (settings.remote_workers) {
    use_remote_workers(bench, workspace, platform);
  } else {
    use_platform(bench, platform);
  }
  ConfigFile file = read_config(settings.config_file);
  std::string mode = settings.agents.empty() ? "tuner" : settings.agents;
  std::vector<llm::CallRecord> preflight = check_models_answer(mode, file);
  book_preflight(*bench.store, run_id, preflight);
  auto agents = make_agents(mode, file, settings.search, settings.prompts, bench.platform,
                            *bench.store, run_id);
  search::SearchContext context = make_context(task, bench, *agents, signals);
  EvaluationPlaces places =
      evaluation_places(settings.search, task, bench, settings.remote_workers, platform);
  context.eval_slots = std::move(places.slots);
  context.eval_places = std::move(places.places_now);
  return ending_failed_on_error(
      *bench.store, run_id, [&] { return search::resume_run(run_id, context, more_iterations); });
}

int run_optimize(const OptimizeArguments& arguments) {
  platform::PlatformChoice platform = platform::parse_platform_choice(arguments.platform);
  std::vector<task::Task> tasks;  // all loaded first: a typo fails before any run starts
  for (const std::string& directory : arguments.task_directories) {
    tasks.push_back(task::load_task(find_task_directory(directory), platform.kernel_extension));
  }
  ConfigFile file = read_config(arguments.config);
  search::SearchConfig config = search_config(arguments, file);
  std::string mode = agents_mode(arguments, file);
  std::string start_kernel;
  if (!arguments.kernel.empty()) {
    if (tasks.size() != 1) throw UserError("--kernel: give one --task, the kernel's own");
    start_kernel = read_file(arguments.kernel);
  }
  for (const task::Task& task : tasks) {
    task.workload_or_default(arguments.workload);  // an unknown workload: before any database
    check_has_baseline(mode, task);
    check_tunable(mode, start_kernel.empty() ? read_file(task.baseline_path()) : start_kernel);
  }
  if (!arguments.prompts.empty() && !std::filesystem::is_directory(arguments.prompts)) {
    throw UserError(fmt::format("--prompts: {} is not a folder", arguments.prompts));
  }
  check_models_configured(mode, file);
  std::vector<llm::CallRecord> preflight = check_models_answer(mode, file);
  if (arguments.remote_workers) check_remote_workers(arguments.workspace);  // before any database
  auto bench = open_workbench(arguments.workspace, Access::kWrite);
  if (arguments.remote_workers) {
    use_remote_workers(*bench, arguments.workspace, platform);
  } else {
    use_platform(*bench, platform);
  }
  std::vector<std::pair<std::string, search::RunSummary>> summaries;
  int code = 0;
  StopOnSignals signals;
  for (const task::Task& task : tasks) {
    if (signals.requested()) break;  // the tasks not started are not started
    search::RunSettings settings;
    settings.agents = mode;
    settings.platform = platform.value;
    settings.remote_workers = arguments.remote_workers;
    settings.config_file = file.path;
    if (!arguments.prompts.empty()) {
      settings.prompts = std::filesystem::absolute(arguments.prompts).string();
    }
    settings.search = config;
    settings.workload = arguments.workload;
    settings.start_kernel = start_kernel;
    settings.remeasure_baseline = arguments.remeasure_baseline;
    if (tasks.size() > 1) std::cerr << fmt::format("== {} ==\n", task.name);
    search::RunSummary summary = start_new_run(*bench, task, std::move(settings), file,
                                               arguments.prompts, signals, {}, preflight);
    // A failed run's 1 outweighs a busy machine's 75; signals' 128 + N outweigh both.
    int run_code = exit_code(summary.state, signals);
    if (code == 0 || (code == kExitMachineBusy && run_code != 0) || run_code > kExitMachineBusy) {
      code = run_code;
    }
    if (arguments.save_baseline) save_baseline(*bench->store, task, summary);
    summaries.emplace_back(task.name, summary);
  }
  if (summaries.size() == 1) {
    report::print_run_summary(std::cout, summaries[0].second,
                              workspace_option(arguments.workspace));
  } else {
    report::print_run_summaries(std::cout, summaries);
  }
  return code;
}

int run_resume(const ResumeArguments& arguments) {
  auto bench = open_workbench(arguments.workspace, Access::kRead);
  StopOnSignals signals;
  search::RunSummary summary = resume_stored_run(*bench, arguments.workspace, arguments.run_id,
                                                 signals, arguments.more_iterations);
  report::print_run_summary(std::cout, summary, workspace_option(arguments.workspace));
  return exit_code(summary.state, signals);
}

void add_optimize_flags(CLI::App& command, OptimizeArguments& arguments) {
  command
      .add_option("--task", arguments.task_directories,
                  "task directory (repeat, or give several, for one run each)")
      ->required();
  command.add_option("--config", arguments.config, "TOML configuration file");
  command.add_option("--preset", arguments.preset, "quick or paper")->capture_default_str();
  command.add_option("--agents", arguments.agents,
                     "tuner, llm or hybrid (default: llm when a model is configured, else tuner)");
  command.add_option("--workload", arguments.workload, "workload (default: the task's default)");
  command
      .add_option("--workspace,--db", arguments.workspace,
                  "workspace directory, or a postgresql:// database")
      ->capture_default_str();
  command.add_option("--strategy", arguments.strategy, "beam or repeated-sampling");
  command.add_option("--iterations", arguments.iterations, "override the preset's T")
      ->check(non_negative_number());
  command.add_option("--max-evaluations", arguments.max_evaluations, "evaluation budget")
      ->check(positive_number());
  command.add_option("--max-wall-seconds", arguments.max_wall_seconds, "wall-time budget")
      ->check(positive_number());
  command.add_option("--seed", arguments.seed, "the search's seed")->check(non_negative_number());
  command
      .add_option("--eval-concurrency", arguments.eval_concurrency,
                  "evaluations at once: here each on cores of its own; with --remote-workers "
                  "jobs in the queue (default: 1 here; remote, as many as workers are connected at "
                  "each moment)")
      ->check(non_negative_number());
  command.add_option("--platform", arguments.platform, platform::platform_forms())
      ->capture_default_str();
  command.add_flag("--remote-workers", arguments.remote_workers,
                   "queue the evaluations in the --db PostgreSQL database for `accelopt worker`s "
                   "on other hosts (docs/scale-out.md)");
  command.add_option("--prompts", arguments.prompts,
                     "a folder of your own prompt templates (llm, hybrid)");
  command.add_option("--kernel", arguments.kernel,
                     "start from your own kernel FILE instead of the task's baseline (one task)");
  command.add_flag("--save-baseline", arguments.save_baseline,
                   "a task without a baseline (import's stub): write the naive kernel the "
                   "executor wrote for the run as the task's baseline file");
  command.add_flag("--remeasure-baseline", arguments.remeasure_baseline,
                   "measure the baseline's latency again and, if the machine is quiet, keep it in "
                   "place of the kept one that latencies and % of peak derive from");
}

void add_resume_flags(CLI::App& command, ResumeArguments& arguments) {
  command.add_option("RUN", arguments.run_id, "run id (see `accelopt runs`)")->required();
  command
      .add_option("--workspace,--db", arguments.workspace,
                  "workspace directory, or a postgresql:// database")
      ->capture_default_str();
  command
      .add_option("--iterations", arguments.more_iterations,
                  "run N more iterations after the last one done (a finished run too)")
      ->check(non_negative_number());
}

}  // namespace

search::RunSummary optimize_one(const NewRun& run, const StopOnSignals& signals) {
  platform::PlatformChoice platform = platform::parse_platform_choice(run.platform);
  task::Task task = task::load_task(run.task_directory, platform.kernel_extension);
  ConfigFile file = read_config(run.config_path);
  check_mode(run.agents);
  check_has_baseline(run.agents, task);
  check_models_configured(run.agents, file);
  std::vector<llm::CallRecord> preflight = check_models_answer(run.agents, file);
  if (run.remote_workers) check_remote_workers(run.workspace);
  auto bench = open_workbench(run.workspace, Access::kWrite);
  if (run.remote_workers) {
    use_remote_workers(*bench, run.workspace, platform);
  } else {
    use_platform(*bench, platform);
  }
  search::RunSettings settings;
  settings.agents = run.agents;
  settings.platform = platform.value;
  settings.remote_workers = run.remote_workers;
  settings.config_file = file.path;
  settings.search = run.search;
  settings.workload = run.workload;
  search::RunSummary summary =
      start_new_run(*bench, task, std::move(settings), file, "", signals, run.created, preflight);
  if (run.save_baseline) save_baseline(*bench->store, task, summary);
  return summary;
}

search::RunSummary resume_one(const std::string& workspace, int64_t run_id,
                              const StopOnSignals& signals) {
  auto bench = open_workbench(workspace, Access::kRead);
  return resume_stored_run(*bench, workspace, run_id, signals, 0);
}

int run_exit_code(const std::string& state, const StopOnSignals& signals) {
  return exit_code(state, signals);
}

void register_loop_commands(CLI::App& app, CommandTable& table) {
  auto optimize_arguments = std::make_shared<OptimizeArguments>();
  auto* optimize =
      app.add_subcommand("optimize", "Optimize a task's kernel with the AccelOpt loop");
  add_optimize_flags(*optimize, *optimize_arguments);
  optimize->callback([&table, optimize_arguments] {
    table.select([optimize_arguments] { return run_optimize(*optimize_arguments); });
  });

  auto resume_arguments = std::make_shared<ResumeArguments>();
  auto* resume = app.add_subcommand(
      "resume", "Continue a run that was interrupted, stopped or failed; or extend a finished one");
  add_resume_flags(*resume, *resume_arguments);
  resume->callback([&table, resume_arguments] {
    table.select([resume_arguments] { return run_resume(*resume_arguments); });
  });
}

}  // namespace accelopt::cli
