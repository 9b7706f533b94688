// End to end (slow): `accelopt study` on the real binary and the real CPU platform, with silu's
// small workload and short timing: a study killed with kill -9 and run again (finished cells kept,
// the killed one resumed); every cell under the same budget; a cell whose model server fails ends
// failed and is resumed by running the study again; status, report --study, --csv and --json; the
// leave-one-out memory order; the closing round of an A/A study.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "cli/cli_test_support.h"
#include "cli/study_closing_round.h"
#include "common/files.h"
#include "common/json.h"
#include "memory/memory.h"
#include "scripted_model_server.h"
#include "search/beam_search.h"
#include "store/store.h"
#include "task/task.h"

namespace accelopt::cli {
namespace {

using Result = testing::CommandOutput;

// Two variants on silu's small workload, one seed; short timing so that a cell takes seconds.
std::string study_text(const std::string& name, const std::string& extra_top = "",
                       const std::string& extra_tables = "") {
  return "[study]\nname = \"" + name + "\"\ntasks = [\"" + std::string(ACCELOPT_SOURCE_DIR) +
         "/bench/cpu/silu\"]\nworkload = \"small\"\nseeds = 1\n" + extra_top +
         "[study.budget]\nmax_evaluations = 5\n"
         "[[study.variant]]\nname = \"beam\"\nsearch = { strategy = \"beam\" }\n"
         "[[study.variant]]\nname = \"sampling\"\nsearch = { strategy = \"repeated-sampling\" }\n"
         "[search]\niterations = 2\nplans = 2\ntiming_target = 0.1\ntiming_budget_seconds = 1.0\n"
         "timing_min_pairs = 4\n" +
         extra_tables;
}

// The study page's own check (<div id="render-check">) after headless Chromium drew it; empty when
// there is no Chromium here.
std::string render_check(const std::filesystem::path& html, const std::filesystem::path& scratch) {
  std::string chromium;
  for (const char* name : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (std::filesystem::exists(name)) chromium = name;
  }
  if (chromium.empty()) return "";
  Result dom = testing::run_shell(chromium +
                                      " --headless --no-sandbox --disable-gpu --no-first-run "
                                      "--user-data-dir=" +
                                      (scratch / "profile").string() +
                                      " --virtual-time-budget=10000 --dump-dom file://" +
                                      html.string() + " 2>/dev/null",
                                  scratch);
  std::smatch match;
  if (!std::regex_search(dom.output, match, std::regex(R"(<div id="render-check"[^>]*>)"))) {
    return "no render check";
  }
  return match[0];
}

std::string workspace_flag(const std::filesystem::path& workspace) {
  return " --workspace " + workspace.string();
}

// The same budget reached every cell, and no cell spent more evaluations than it.
void expect_equal_budgets(const std::filesystem::path& workspace, int64_t budget) {
  auto store = store::Store::open(store::database_path(workspace));
  auto cells = store->study_cells(1);
  ASSERT_EQ(cells.size(), 2u);
  for (const auto& [key, run_id] : cells) {
    Json config = store->run(run_id)->config;
    EXPECT_EQ(config["search"]["max_evaluations"], budget) << key;
    EXPECT_LE(store->evaluation_count(run_id), budget) << key;
  }
}

// A cell whose run stopped because the machine was too busy to time its baseline has no result:
// the study resumes it instead of counting it ended (on a starved machine a cold cell once ended
// so, and the leave-one-out test below found no memory entry for its task).
TEST(StudyCells, ACellStoppedByABusyMachineHasNotEnded) {
  std::string busy =
      "stopped: the machine was too busy to evaluate the baseline (the runner did not start within "
      "15000 ms)";
  ASSERT_TRUE(search::stopped_by_busy_machine(busy)) << "the search's wording changed";
  EXPECT_FALSE(cell_ended(busy));
  EXPECT_TRUE(cell_ended("finished"));
  EXPECT_TRUE(cell_ended("stopped: the evaluation budget is spent"));
  EXPECT_FALSE(cell_ended("interrupted"));
  EXPECT_FALSE(cell_ended("failed: the baseline does not pass"));
}

TEST(StudyEndToEnd, AKilledStudyResumesKeepingWhatItHad) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path file = dir.path() / "study.toml";
  write_file_atomic(file, study_text("killed"));
  std::string binary = std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt";
  std::string log = (dir.path() / "killed.txt").string();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execl(binary.c_str(), binary.c_str(), "study", file.c_str(), "--workspace", workspace.c_str(),
            nullptr);
    ::_exit(127);
  }
  // Kill it once the first cell's run has recorded its baseline and a candidate.
  auto database = store::database_path(workspace);
  std::vector<store::CandidateRecord> before;
  for (int wait = 0; wait < 1200 && before.size() < 2; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (read_file(log).find("== cell 1/2") == std::string::npos) continue;
    before = store::Store::open(database)->candidates(1);
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << read_file(log);
  ASSERT_GE(before.size(), 2u) << read_file(log);
  EXPECT_EQ(store::Store::open(database)->run(1)->state, "running");

  Result status_before =
      testing::run_accelopt("study status" + workspace_flag(workspace), dir.path());
  ASSERT_EQ(status_before.code, 0) << status_before.output;
  EXPECT_NE(status_before.output.find("0 of 2 cells done"), std::string::npos)
      << status_before.output;
  EXPECT_NE(status_before.output.find("not started"), std::string::npos) << status_before.output;

  Result again =
      testing::run_accelopt("study " + file.string() + workspace_flag(workspace), dir.path());
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("resuming: 0 done"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("resuming run 1 (running)"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("memory order: cold"), std::string::npos) << again.output;
  // One (task, seed) pair: too few to show a difference, whatever the figures.
  EXPECT_NE(again.output.find("beam vs sampling: too few pairs"), std::string::npos)
      << again.output;
  auto store = store::Store::open(database);
  auto cells = store->study_cells(1);
  EXPECT_EQ(cells["beam/silu/seed1/cold"], 1);  // the killed run, resumed rather than replaced
  EXPECT_EQ(store->runs().size(), 2u);
  auto after = store->candidates(1);
  ASSERT_GE(after.size(), before.size());
  for (size_t index = 0; index < before.size(); ++index) {
    EXPECT_EQ(after[index].id, before[index].id);
    EXPECT_EQ(after[index].key, before[index].key);
  }
  for (const auto& [key, run_id] : cells) {
    std::string state = store->run(run_id)->state;
    EXPECT_TRUE(state == "finished" || state.rfind("stopped", 0) == 0) << key << ": " << state;
  }
  EXPECT_EQ(store->study(1)->state, "finished");
  expect_equal_budgets(workspace, 5);

  // Run once more: nothing left to do, the answers again.
  Result third =
      testing::run_accelopt("study " + file.string() + workspace_flag(workspace), dir.path());
  ASSERT_EQ(third.code, 0) << third.output;
  EXPECT_EQ(store::Store::open(database)->runs().size(), 2u);
  EXPECT_NE(third.output.find("resuming: 2 done"), std::string::npos) << third.output;

  // The study's page and exports; each cell is an ordinary run.
  std::filesystem::path html = dir.path() / "study.html";
  Result report = testing::run_accelopt(
      "report --study 1 --out " + html.string() + " --csv " + (dir.path() / "study.csv").string() +
          " --json " + (dir.path() / "study.json").string() + workspace_flag(workspace),
      dir.path());
  ASSERT_EQ(report.code, 0) << report.output;
  EXPECT_NE(read_file(html).find("echarts"), std::string::npos);
  std::string check = render_check(html, dir.path());
  if (!check.empty()) {  // the page drew its charts without a script error
    EXPECT_NE(check.find("data-done=\"yes\""), std::string::npos) << check;
    EXPECT_NE(check.find("data-errors=\"\""), std::string::npos) << check;
    EXPECT_EQ(check.find("data-charts=\"0\""), std::string::npos) << check;
  }
  Json json = Json::parse(read_file(dir.path() / "study.json"));
  EXPECT_EQ(json["cells"].size(), 2u);
  EXPECT_EQ(json["series"], (Json{"beam", "sampling"}));
  EXPECT_FALSE(json["comparisons"].empty());
  std::string csv = read_file(dir.path() / "study.csv");
  EXPECT_EQ(csv.rfind("study,series,task,seed,run,state,point,", 0), 0u) << csv;
  EXPECT_EQ(testing::run_accelopt("show 2" + workspace_flag(workspace), dir.path()).code, 0);

  // The same name from a changed file is refused: its cells would not compare.
  write_file_atomic(file, study_text("killed", "fraction = 0.8\n"));
  Result changed =
      testing::run_accelopt("study " + file.string() + workspace_flag(workspace), dir.path());
  EXPECT_EQ(changed.code, 2) << changed.output;
  EXPECT_NE(changed.output.find("was run from another version"), std::string::npos)
      << changed.output;
}

// The LLM agents against the scripted server, whose planner fails with HTTP 500: the first cell
// ends failed (and the study with it); once the server answers, the same command resumes it.
TEST(StudyEndToEnd, ACellWhoseModelServerFailsEndsFailedAndResumes) {
  accelopt::testing::ScriptedModelServer server;
  server.on(accelopt::testing::ScriptRule{"planner", "", "", -1, 500});
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path file = dir.path() / "study.toml";
  write_file_atomic(file, study_text("failing", "agents = \"llm\"\n", server.config_toml()));

  Result first =
      testing::run_accelopt("study " + file.string() + workspace_flag(workspace), dir.path());
  EXPECT_EQ(first.code, 1) << first.output;
  auto database = store::database_path(workspace);
  {
    auto store = store::Store::open(database);
    auto cells = store->study_cells(1);
    ASSERT_EQ(cells.size(), 2u) << first.output;
    for (const auto& [key, run_id] : cells) {
      EXPECT_EQ(store->run(run_id)->state.rfind("failed: ", 0), 0u) << key;
    }
    EXPECT_EQ(store->study(1)->state.rfind("failed: 2 of 2 cells did not end", 0), 0u)
        << store->study(1)->state;
  }
  EXPECT_NE(first.output.find("continue it with `accelopt study"), std::string::npos)
      << first.output;

  int planned = 0;
  server.set_responder(
      [&planned](const accelopt::testing::ScriptedRequest& request) -> std::optional<std::string> {
        if (request.role != "planner") return std::nullopt;
        ++planned;
        return accelopt::testing::plan_answer("Plan " + std::to_string(planned),
                                              "Unroll the loop by " + std::to_string(planned));
      });
  Result second =
      testing::run_accelopt("study " + file.string() + workspace_flag(workspace), dir.path());
  ASSERT_EQ(second.code, 0) << second.output;
  auto store = store::Store::open(database);
  EXPECT_EQ(store->runs().size(), 2u);  // resumed, not started again
  for (const auto& [key, run_id] : store->study_cells(1)) {
    std::string state = store->run(run_id)->state;
    EXPECT_TRUE(state == "finished" || state.rfind("stopped", 0) == 0) << key << ": " << state;
    EXPECT_FALSE(store->calls(std::to_string(run_id)).empty()) << key;
  }
  EXPECT_EQ(store->study(1)->state, "finished");
  expect_equal_budgets(workspace, 5);
}

// What a run's planner was given from the memory: the memory's own retrieval over the database's
// entries, under the visibility rule the run's settings carry (memory_horizon, memory_runs,
// memory_excluded_tasks) and its memory options, with every entry the scope allows.
std::vector<store::MemoryEntryRecord> memory_read_by(const store::Store& store, int64_t run_id) {
  Json config = store.run(run_id)->config;
  memory::Visibility visibility;
  visibility.horizon = config.value("memory_horizon", int64_t{0});
  visibility.runs = config.value("memory_runs", std::vector<int64_t>{});
  visibility.excluded_tasks = config.value("memory_excluded_tasks", std::vector<std::string>{});
  memory::MemoryOptions options;
  options.scope = memory::parse_scope(config["search"]["memory"].value("scope", "task"));
  options.exp_n = 1000;
  options.retrieve_limit = 1000;
  task::Task task = task::load_task(config.value("task_directory", ""));
  return memory::retrieve(store.memory_entries(), task, options, run_id, visibility);
}

// Leave-one-out with the tuner on two tasks: each warm cell reads the memory its variant's cold
// cells made on the other task, and none of its own task's (but the lessons its own run finds).
// The cold cells leave entries by construction, under the memory's own thresholds: on the passes_*
// test tasks every tuner move changes the kernel's time by a factor of 3 (PASSES 3 -> 1 or 9), and
// the first iteration ends before the budget, so its rewrites are re-timed and remembered. (It ran
// on silu and matmul once, whose tuner moves are worth 4-15 %: on a loaded machine the intervals
// straddled 1 and the cold pass left no matmul entry, in every fresh-clone run of issue 45's.)
TEST(StudyEndToEnd, LeaveOneOutWarmCellsReadTheOtherTasksMemoryNeverTheirOwn) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path file = dir.path() / "study.toml";
  std::string tasks = std::string(ACCELOPT_SOURCE_DIR) + "/tests/data/tasks/";
  write_file_atomic(
      file,
      "[study]\nname = \"loo\"\ntasks = [\"" + tasks + "passes_axpy\", \"" + tasks +
          "passes_scale\"]\nworkload = \"small\"\nseeds = 1\n"
          "memory_order = \"leave-one-out\"\n[study.budget]\nmax_evaluations = 6\n"
          "[[study.variant]]\nname = \"memory\"\nmemory = { scope = \"all\" }\n"
          "[search]\niterations = 2\nplans = 3\ntiming_target = 0.1\n"
          "timing_budget_seconds = 1.0\ntiming_min_pairs = 4\ntiming_quiet_wait_seconds = 0\n");
  Result result =
      testing::run_accelopt("study " + file.string() + workspace_flag(workspace), dir.path());
  ASSERT_EQ(result.code, 0) << result.output;
  EXPECT_NE(result.output.find("memory order: cold, then warm leave-one-out"), std::string::npos)
      << result.output;

  auto store = store::Store::open(store::database_path(workspace));
  auto cells = store->study_cells(1);
  ASSERT_EQ(cells.size(), 4u) << result.output;
  std::vector<int64_t> cold = {cells["memory/passes_axpy/seed1/cold"],
                               cells["memory/passes_scale/seed1/cold"]};
  std::sort(cold.begin(), cold.end());
  std::map<std::string, int> cold_entries;  // by task
  for (const auto& entry : store->memory_entries()) {
    if (std::find(cold.begin(), cold.end(), entry.run_id) != cold.end()) ++cold_entries[entry.task];
  }
  for (const std::string& name : {std::string("passes_axpy"), std::string("passes_scale")}) {
    ASSERT_GT(cold_entries[name], 0) << "the cold pass left no entry on " << name << "\n"
                                     << result.output;
  }

  for (const std::string& name : {std::string("passes_axpy"), std::string("passes_scale")}) {
    int64_t warm = cells["memory/" + name + "/seed1/warm"];
    Json config = store->run(warm)->config;
    EXPECT_EQ(config["memory_excluded_tasks"], Json::array({name})) << config.dump();
    std::vector<int64_t> runs = config.value("memory_runs", std::vector<int64_t>{});
    std::sort(runs.begin(), runs.end());
    EXPECT_EQ(runs, cold) << config.dump();
    int other_task = 0;
    for (const auto& entry : memory_read_by(*store, warm)) {
      if (entry.run_id == warm) continue;  // its own run's lessons
      EXPECT_NE(entry.task, name) << "warm " << name << " read entry " << entry.id;
      EXPECT_TRUE(std::find(cold.begin(), cold.end(), entry.run_id) != cold.end())
          << "warm " << name << " read entry " << entry.id << " of run " << entry.run_id;
      ++other_task;
    }
    std::string other = name == "passes_axpy" ? "passes_scale" : "passes_axpy";
    EXPECT_EQ(other_task, cold_entries[other]) << "warm " << name << " on " << other;
  }
  Result report = testing::run_accelopt(
      "report --study 1 --out " + (dir.path() / "s.html").string() + " --json " +
          (dir.path() / "s.json").string() + workspace_flag(workspace),
      dir.path());
  ASSERT_EQ(report.code, 0) << report.output;
  Json json = Json::parse(read_file(dir.path() / "s.json"));
  EXPECT_EQ(json["memory_order"], "leave-one-out") << json.dump().substr(0, 400);
}

// An A/A study: two identical variants, the tuner, passes_axpy (each tuner move 3x faster or
// slower), 3 seeds. The closing round times every cell's best against the task's one baseline,
// together; cells whose best is the same source share its measurements, so their closing figures
// are equal by construction, and where every cell found the same kernel the final comparison is
// exactly 1 with a point interval: no difference. Run again, it times nothing; with
// --no-closing-round the answers say the figures are each cell's own.
TEST(StudyEndToEnd, AnAAStudysClosingRoundGivesCellsWithOneBestOneFigure) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path file = dir.path() / "study.toml";
  write_file_atomic(
      file, "[study]\nname = \"aa\"\ntasks = [\"" + std::string(ACCELOPT_SOURCE_DIR) +
                "/tests/data/tasks/passes_axpy\"]\nworkload = \"small\"\nseeds = 3\n"
                "[study.budget]\nmax_evaluations = 3\n"
                "[[study.variant]]\nname = \"first\"\n[[study.variant]]\nname = \"second\"\n"
                "[search]\niterations = 1\nplans = 2\ntiming_target = 0.1\n"
                "timing_budget_seconds = 1.0\ntiming_min_pairs = 4\n"
                "timing_quiet_wait_seconds = 0\n");
  Result result =
      testing::run_accelopt("study " + file.string() + workspace_flag(workspace), dir.path());
  ASSERT_EQ(result.code, 0) << result.output;
  EXPECT_NE(result.output.find("== closing round"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("final figures from the closing round (3 rounds, cells of a task "
                               "timed together)"),
            std::string::npos)
      << result.output;

  Json detail = store::Store::open(store::database_path(workspace))->study(1)->detail;
  const Json& closing = detail["closing_round"];
  ASSERT_EQ(closing["cells"].size(), 6u) << closing.dump();
  std::set<std::string> sources;
  for (const auto& [key, cell] : closing["cells"].items()) {
    if (!cell["baseline"].get<bool>()) sources.insert(cell["source_hash"].get<std::string>());
  }
  const Json& measured = closing["tasks"]["passes_axpy"]["measurements"];
  EXPECT_EQ(measured.size(), sources.size()) << closing.dump();
  for (const auto& [hash, rounds] : measured.items()) EXPECT_EQ(rounds.size(), 3u) << hash;

  Result report = testing::run_accelopt(
      "report --study 1 --out " + (dir.path() / "s.html").string() + " --json " +
          (dir.path() / "s.json").string() + workspace_flag(workspace),
      dir.path());
  ASSERT_EQ(report.code, 0) << report.output;
  Json json = Json::parse(read_file(dir.path() / "s.json"));
  std::map<std::string, Json> figure_of_source;  // the first cell's closing figure per source
  for (const Json& cell : json["cells"]) {
    ASSERT_TRUE(cell["closing"].is_object()) << cell.dump();
    std::string hash = closing["cells"][cell["key"].get<std::string>()]["source_hash"];
    auto [first, inserted] = figure_of_source.emplace(hash, cell["closing"]);
    EXPECT_EQ(cell["closing"], first->second) << cell["key"];  // the same best, the same figure
    EXPECT_EQ(cell["final_speedup"], cell["closing"]["speedup"]) << cell["key"];
  }
  if (figure_of_source.size() == 1) {  // every cell found the same kernel: exactly no difference
    for (const Json& comparison : json["comparisons"]) {
      if (comparison["measure"] != "final") continue;
      EXPECT_EQ(comparison["ratio"], 1.0) << comparison.dump();
      EXPECT_EQ(comparison["low"], 1.0) << comparison.dump();
      EXPECT_EQ(comparison["high"], 1.0) << comparison.dump();
      EXPECT_FALSE(comparison["shown"].get<bool>()) << comparison.dump();
    }
  }

  Result again =
      testing::run_accelopt("study " + file.string() + workspace_flag(workspace), dir.path());
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("closing round: 0 measurements taken now, " +
                              std::to_string(3 * sources.size()) + " kept"),
            std::string::npos)
      << again.output;

  Result skipped = testing::run_accelopt(
      "study " + file.string() + " --no-closing-round" + workspace_flag(workspace), dir.path());
  ASSERT_EQ(skipped.code, 0) << skipped.output;
  EXPECT_NE(skipped.output.find("final figures: each cell's own figure, measured apart (the "
                                "closing round was skipped: --no-closing-round)"),
            std::string::npos)
      << skipped.output;
}

// Ctrl-C during the closing round ends the study "interrupted" with what it had measured kept; the
// same command then resumes the round and times only what was left. Every timing there runs its
// whole budget (a target no interval reaches), so a round lasts seconds and the signal, sent when
// the first turn starts, lands inside the round.
TEST(StudyEndToEnd, CtrlCDuringTheClosingRoundInterruptsAndTheNextRunResumesIt) {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "ws";
  std::filesystem::path file = dir.path() / "study.toml";
  write_file_atomic(file,
                    "[study]\nname = \"closing\"\ntasks = [\"" + std::string(ACCELOPT_SOURCE_DIR) +
                        "/tests/data/tasks/passes_axpy\"]\nworkload = \"small\"\nseeds = 1\n"
                        "[study.budget]\nmax_evaluations = 2\n[[study.variant]]\nname = \"only\"\n"
                        "[search]\niterations = 1\nplans = 2\ntiming_target = 0.0001\n"
                        "timing_budget_seconds = 1.5\ntiming_min_pairs = 4\n"
                        "timing_quiet_wait_seconds = 0\n");
  std::string binary = std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt";
  std::string log = (dir.path() / "interrupted.txt").string();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execl(binary.c_str(), binary.c_str(), "study", file.c_str(), "--workspace", workspace.c_str(),
            nullptr);
    ::_exit(127);
  }
  bool started = false;
  for (int wait = 0; wait < 6000 && !started; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    started = read_file(log).find("closing round 1/3") != std::string::npos;
    if (::waitpid(child, nullptr, WNOHANG) == child) break;  // ended before its closing round
  }
  ASSERT_TRUE(started) << read_file(log);
  ::kill(child, SIGINT);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << read_file(log);
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(log);
  std::string first = read_file(log);
  EXPECT_NE(first.find("stopped, the next run resumes it"), std::string::npos) << first;

  auto database = store::database_path(workspace);
  size_t kept = 0;
  {
    auto store = store::Store::open(database);
    EXPECT_EQ(store->study(1)->state, "interrupted");
    for (const auto& [hash, rounds] :
         store->study(1)->detail["closing_round"]["tasks"]["passes_axpy"]["measurements"].items()) {
      kept += rounds.size();
    }
  }
  ASSERT_LT(kept, 3u) << first;

  Result again =
      testing::run_accelopt("study " + file.string() + workspace_flag(workspace), dir.path());
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("closing round: " + std::to_string(3 - kept) + " measurement" +
                              (3 - kept == 1 ? "" : "s") + " taken now, " + std::to_string(kept) +
                              " kept from before"),
            std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("final figures from the closing round (3 rounds"), std::string::npos)
      << again.output;
  EXPECT_EQ(store::Store::open(database)->study(1)->state, "finished");
}

}  // namespace
}  // namespace accelopt::cli
