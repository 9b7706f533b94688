// accelopt study FILE: a grid of runs (study/study_file.h), each started or resumed through the
// steps `optimize` and `resume` use (cli/run_steps.h), then the closing round that times every
// cell's best with the other cells of its task (cli/study_closing_round.h), then what the grid
// answers (report/study_report.h). `study status [N]` prints the grid's progress. A study is found
// again by its name: the same file resumes it, a changed one is refused (its cells would no longer
// compare).
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "cli/run_steps.h"
#include "cli/study_closing_round.h"
#include "cli/workspace.h"
#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "memory/memory.h"
#include "platform/registry.h"
#include "report/study_report.h"
#include "search/beam_search.h"
#include "search/config.h"
#include "study/closing_round.h"
#include "study/comparison.h"
#include "study/study_file.h"
#include "task/task.h"

namespace accelopt::cli {
namespace {

struct StudyArguments {
  std::string file;
  std::string workspace = kDefaultWorkspace;
  bool remote_workers = false;
  bool smoke = false;  // study::make_smoke
  bool no_closing_round = false;
};

struct StudyStatusArguments {
  int64_t study_id = 0;  // 0: the newest
  std::string workspace = kDefaultWorkspace;
};

// A cell stopped by a busy machine is resumed after a pause, this many times, before the study
// says it did not end (a later `accelopt study` resumes it again).
constexpr int kBusyCellRetries = 3;
constexpr std::chrono::seconds kBusyCellPause{10};

// Resumes `run_id` while it stops because the machine was too busy to time its baseline, at most
// kBusyCellRetries times; returns its last state.
std::string resumed_while_busy(const std::string& workspace, const std::string& key, int64_t run_id,
                               std::string state, const StopOnSignals& signals) {
  for (int retry = 1; retry <= kBusyCellRetries && search::stopped_by_busy_machine(state);
       ++retry) {
    std::cerr << fmt::format(
        "cell {}: the machine was too busy to time its baseline; resuming it in {} s ({} of {})\n",
        key, kBusyCellPause.count(), retry, kBusyCellRetries);
    auto until = std::chrono::steady_clock::now() + kBusyCellPause;
    while (std::chrono::steady_clock::now() < until && !signals.requested()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (signals.requested()) break;
    state = resume_one(workspace, run_id, signals).state;
  }
  return state;
}

Json budget_json(const study::Budget& budget) {
  Json json = Json::object();
  if (budget.max_evaluations) json["max_evaluations"] = *budget.max_evaluations;
  if (budget.max_usd) json["max_usd"] = *budget.max_usd;
  if (budget.max_tokens) json["max_tokens"] = *budget.max_tokens;
  if (budget.max_wall_seconds) json["max_wall_seconds"] = *budget.max_wall_seconds;
  return json;
}

// Where the variants' configuration files live: beside the database (a folder workspace), or in
// ./.accelopt for a PostgreSQL one. Each cell's run names its file, so `accelopt resume RUN` works
// on a cell alone.
std::filesystem::path config_folder(const std::string& workspace, int64_t study_id) {
  if (store::is_postgres_url(workspace)) {
    return std::filesystem::absolute(kDefaultWorkspace) / "studies" /
           fmt::format("{}-{}", sha256_hex(workspace).substr(0, 8), study_id);
  }
  return std::filesystem::absolute(workspace) / "studies" / std::to_string(study_id);
}

// The study of this name in the store, or a new one. A study of the same name whose file changed
// is refused: its finished cells were run under other settings.
int64_t find_or_create(store::Store& store, const study::Study& study, const std::string& hash,
                       bool& resumed) {
  for (const store::StudyRecord& record : store.studies()) {
    if (record.name != study.name) continue;
    if (record.content_hash != hash) {
      throw UserError(fmt::format(
          "study '{}' (study {}) in this workspace was run from another version of {} (sha256 {} "
          "then, {} now); its cells would not compare: rename the study ([study] name) or use "
          "another --workspace",
          study.name, record.id, study.path.string(), record.content_hash.substr(0, 12),
          hash.substr(0, 12)));
    }
    resumed = true;
    return record.id;
  }
  Json cells = Json::array();
  for (const study::Cell& cell : study.cells()) {
    cells.push_back(Json{{"key", cell.key()},
                         {"variant", cell.variant},
                         {"task", cell.task},
                         {"seed", cell.seed},
                         {"warm", cell.warm}});
  }
  store::StudyRecord record;
  record.name = study.name;
  record.path = study.path.string();
  record.content = study.text;
  record.content_hash = hash;
  record.state = "running";
  record.detail = Json{{"fraction", study.fraction},
                       {"memory_order", std::string(study::memory_order_name(study.memory_order))},
                       {"budget", budget_json(study.budget)},
                       {"horizon", store.max_memory_id()},
                       {"cells", cells}};
  resumed = false;
  return store.create_study(record);
}

// The memory order as the study's start says it; under leave-one-out, a variant whose memory reads
// its own task only sees nothing warm but its own run's lessons, which is said too.
std::string memory_order_line(const study::Study& study) {
  switch (study.memory_order) {
    case study::MemoryOrder::kCold:
      return "cold (each cell sees the memory as of the study's start, and its own run's)";
    case study::MemoryOrder::kColdThenWarm:
      return "cold, then warm (the warm pass sees all the memory the cold pass made)";
    case study::MemoryOrder::kLeaveOneOut:
      break;
  }
  std::string line =
      "cold, then warm leave-one-out (a warm cell on a task sees only the memory its own "
      "variant's cold cells made on the other tasks, never the task's own, and its own run's)";
  for (const study::Variant& variant : study.variants) {
    if (!variant.memory_on) continue;
    search::SearchConfig config = search::preset(study.preset);
    search::apply_config_text(config, study::variant_config_text(study, variant), study.path);
    if (config.memory.scope == memory::Scope::kTask) {
      line += fmt::format(
          "\n  note: variant '{}' reads its own task's memory only (scope task), so its warm "
          "cells see none of the cold pass's",
          variant.name);
    }
  }
  return line;
}

// The runs of `variant`'s cold cells, all tasks and seeds: what its leave-one-out warm cells read.
std::vector<int64_t> cold_runs_of(const std::vector<study::Cell>& cells,
                                  const std::map<std::string, int64_t>& runs,
                                  const std::string& variant) {
  std::vector<int64_t> result;
  for (const study::Cell& cell : cells) {
    if (cell.warm || cell.variant != variant) continue;
    if (auto run = runs.find(cell.key()); run != runs.end()) result.push_back(run->second);
  }
  return result;
}

// The closing round once every cell has ended (study/closing_round.h); false when Ctrl-C stopped
// it. Skipped (--no-closing-round), it is marked so, and the answers use each cell's own figure.
bool closing_round(const StudyArguments& arguments, const study::Study& study, int64_t study_id,
                   const std::string& study_state, Json& detail, const StopOnSignals& signals) {
  if (arguments.no_closing_round) {
    if (!detail.contains("closing_round")) detail["closing_round"] = Json::object();
    detail["closing_round"]["skipped"] = true;
    std::cerr << "closing round: skipped (--no-closing-round): the final figures are each cell's "
                 "own, measured apart\n";
    return true;
  }
  if (study_state != "finished") {
    std::cerr << "closing round: not yet, since not every cell has ended\n";
    return true;
  }
  int rounds = study.smoke ? 1 : study::kClosingRounds;
  std::cerr << fmt::format(
      "== closing round: every cell's best against its task's baseline, {} round{}, the cells of "
      "a task timed together ==\n",
      rounds, rounds == 1 ? "" : "s");
  ClosingRoundOutcome outcome = run_study_closing_round(arguments.workspace, study_id, detail,
                                                        rounds, arguments.remote_workers, signals);
  std::cerr << fmt::format("closing round: {} measurement{} taken now, {} kept from before{}\n",
                           outcome.taken, outcome.taken == 1 ? "" : "s", outcome.kept,
                           outcome.stopped ? "; stopped, the next run resumes it" : "");
  return !outcome.stopped;
}

int run_study(const StudyArguments& arguments) {
  study::Study study = study::load_study(arguments.file, [](const std::filesystem::path& given) {
    return find_task_directory(given.string());
  });
  if (arguments.smoke) study::make_smoke(study);
  platform::PlatformChoice platform = platform::parse_platform_choice("cpu");
  for (const auto& directory : study.tasks) {  // a bad task or workload fails before any run
    task::load_task(directory, platform.kernel_extension).workload_or_default(study.workload);
  }
  if (arguments.remote_workers && !store::is_postgres_url(arguments.workspace)) {
    throw UserError(
        "--remote-workers needs a shared PostgreSQL database: give --db postgresql://…");
  }
  // The database is opened for each step and closed before a cell runs: a cell opens its own, and
  // two SQLite connections to one file in one process break each other's locks when one closes.
  auto open = [&] { return open_workspace(arguments.workspace, Access::kWrite); };
  std::string hash = sha256_hex(study.smoke ? study.text + "\n# --smoke\n" : study.text);
  bool resumed = false;
  int64_t study_id = 0;
  Json detail;
  std::vector<study::Cell> cells = study.cells();
  std::map<std::string, int64_t> runs;
  int done = 0;
  {
    auto store = open();
    study_id = find_or_create(*store, study, hash, resumed);
    detail = store->study(study_id)->detail;
    runs = store->study_cells(study_id);
    for (const study::Cell& cell : cells) {
      auto run = runs.find(cell.key());
      if (run != runs.end() && cell_ended(store->run(run->second)->state)) ++done;
    }
  }

  std::filesystem::path folder = config_folder(arguments.workspace, study_id);
  std::filesystem::create_directories(folder);
  std::map<std::string, std::filesystem::path> config_files;
  for (const study::Variant& variant : study.variants) {
    config_files[variant.name] = folder / (variant.name + ".toml");
    write_file_atomic(config_files[variant.name], study::variant_config_text(study, variant));
  }

  std::cerr << fmt::format(
      "study {} ({}): {} cells = {} task(s) x {} variant(s) x {} seed(s){}; {}\n", study_id,
      study.name, cells.size(), study.tasks.size(), study.variants.size(), study.seeds.size(),
      study.memory_order == study::MemoryOrder::kCold ? "" : ", then the warm pass",
      resumed ? fmt::format("resuming: {} done", done) : "new");
  if (study.smoke) {
    std::cerr << fmt::format(
        "smoke run (--smoke): seed {} only, the first {} task(s), the small workload, at most {} "
        "evaluations a cell, brief timing, a closing round of one round; it checks that the study "
        "runs, its figures compare nothing\n",
        study.seeds.front(), study::kSmokeTasks, *study.budget.max_evaluations);
  }
  std::cerr << "memory order: " << memory_order_line(study) << "\n";

  StopOnSignals signals;
  std::vector<std::string> failures;
  int index = 0;
  for (const study::Cell& cell : cells) {
    ++index;
    if (signals.requested()) break;
    std::string key = cell.key();
    auto found = runs.find(key);
    std::string state;
    int64_t run_id = 0;
    try {
      if (found != runs.end()) {
        state = open()->run(found->second)->state;
        if (cell_ended(state)) continue;
        std::cerr << fmt::format("== cell {}/{} {}: resuming run {} ({}) ==\n", index, cells.size(),
                                 key, found->second, state);
        run_id = found->second;
        state = resume_one(arguments.workspace, run_id, signals).state;
      } else {
        if (cell.warm && !detail.contains("warm_horizon")) {
          auto store = open();
          detail["warm_horizon"] = store->max_memory_id();  // everything the cold pass made
          store->set_study_state(study_id, "running", detail);
        }
        int64_t horizon = detail.value(cell.warm ? "warm_horizon" : "horizon", int64_t{0});
        const study::Variant& variant = study.variant(cell.variant);
        NewRun run;
        run.task_directory = cell.task_directory;
        run.workload = study.workload;
        run.config_path = config_files[cell.variant].string();
        run.agents = variant.agents;
        run.search = search::preset(study.preset);
        search::apply_config_text(run.search, read_file(run.config_path), run.config_path);
        run.search.seed = cell.seed;
        run.workspace = arguments.workspace;
        run.remote_workers = arguments.remote_workers;
        run.created = [&](store::Store& cell_store, int64_t run_id) {
          cell_store.set_study_cell(study_id, key, run_id);
          Json config = cell_store.run(run_id)->config;
          config["memory_horizon"] = horizon;  // the memory order (docs/study.md)
          if (cell.warm && study.memory_order == study::MemoryOrder::kLeaveOneOut) {
            config["memory_runs"] =
                cold_runs_of(cells, cell_store.study_cells(study_id), cell.variant);
            config["memory_excluded_tasks"] = Json::array({config["task"]});
          }
          cell_store.set_run_config(run_id, config);
        };
        std::cerr << fmt::format("== cell {}/{} {} ==\n", index, cells.size(), key);
        search::RunSummary summary = optimize_one(run, signals);
        run_id = summary.run_id;
        state = summary.state;
      }
      state = resumed_while_busy(arguments.workspace, key, run_id, state, signals);
    } catch (const UserError& error) {
      // Not the cell's outcome but its set-up (a model that does not answer, a damaged
      // database): every later cell would meet it too, so the study stops here.
      failures.push_back(fmt::format("{} ({})", key, error.what()));
      std::cerr << fmt::format("cell {}: {}\n", key, error.what());
      break;
    }
    if (state == "interrupted") break;
    if (!cell_ended(state)) failures.push_back(fmt::format("{} ({})", key, state));
  }
  std::string study_state = "finished";
  if (signals.requested()) {
    study_state = "interrupted";
  } else if (!failures.empty()) {
    study_state = fmt::format("failed: {} of {} cells did not end: {}", failures.size(),
                              cells.size(), failures.front());
  }
  if (!closing_round(arguments, study, study_id, study_state, detail, signals)) {
    study_state = "interrupted";
  }
  auto store = open();
  store->set_study_state(study_id, study_state, detail);
  report::StudyView view = report::load_study_view(*store, study_id);
  report::print_study_answers(std::cout, view,
                              study::answer(view.results(), view.series, view.fraction));
  if (study_state != "finished") {
    std::cerr << fmt::format("continue it with `accelopt study {}{}`\n", arguments.file,
                             arguments.workspace == kDefaultWorkspace
                                 ? ""
                                 : " --workspace " + store::redact_url(arguments.workspace));
  }
  if (signals.requested()) return signals.exit_code();
  return failures.empty() ? 0 : 1;
}

int run_study_status(const StudyStatusArguments& arguments) {
  auto store = open_workspace(arguments.workspace, Access::kRead);
  int64_t id = arguments.study_id;
  if (id == 0) {
    auto all = store->studies();
    if (all.empty()) throw UserError("there is no study in this workspace");
    id = all.back().id;
  }
  report::print_study_status(std::cout, report::load_study_view(*store, id));
  return 0;
}

}  // namespace

void register_study_commands(CLI::App& app, CommandTable& table) {
  auto arguments = std::make_shared<StudyArguments>();
  auto* study = app.add_subcommand(
      "study",
      "Run (or resume) a study: tasks x variants x seeds, each cell a run, the same budget for "
      "all; then what it answers (docs/study.md)");
  study->add_option("FILE", arguments->file, "the study file (TOML)");
  study
      ->add_option("--workspace,--db", arguments->workspace,
                   "workspace directory, or a postgresql:// database")
      ->capture_default_str();
  study->add_flag("--remote-workers", arguments->remote_workers,
                  "queue the cells' evaluations for `accelopt worker`s (docs/scale-out.md)");
  study->add_flag(
      "--smoke", arguments->smoke,
      "run it small, as a study of its own (<name>-smoke): the first seed and task, the "
      "small workload, 3 evaluations a cell, brief timing, a closing round of one round");
  study->add_flag("--no-closing-round", arguments->no_closing_round,
                  "skip the closing round (every cell's best re-timed with the other cells of its "
                  "task): the final comparison then uses each cell's own figure, measured apart");
  auto status_arguments = std::make_shared<StudyStatusArguments>();
  auto* status = study->add_subcommand("status", "The grid's progress: each cell's run and state");
  status->add_option("STUDY", status_arguments->study_id, "study id (default: the newest)");
  status
      ->add_option("--workspace,--db", status_arguments->workspace,
                   "workspace directory, or a postgresql:// database")
      ->capture_default_str();
  status->callback([&table, status_arguments] {
    table.select([status_arguments] { return run_study_status(*status_arguments); });
  });
  study->callback([&table, arguments, study] {
    if (study->got_subcommand("status")) return;
    if (arguments->file.empty()) throw CLI::RequiredError("FILE");
    table.select([arguments] { return run_study(*arguments); });
  });
}

}  // namespace accelopt::cli
