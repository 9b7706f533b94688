// What a run was started with. The store keeps it as the run's JSON (store::RunRecord::config);
// this type is its meaning, and the only code that reads or writes that JSON:
//   {"agents": "llm", "platform": "cpu", "remote_workers": false, "config_file": "/…/a.toml",
//    "prompts": "", "search": {SearchConfig}, "task": "silu", "task_directory": "/…/silu",
//    "workload": "small", "memory_horizon": 12, "memory_runs": [4, 5],
//    "memory_excluded_tasks": ["silu"],
//    "baseline_timing": {TimingOptions, "used_for": "…"}, "start_kernel": "…",
//    "machine": {"cpu": "…", "compiler": "…", …}, "remeasure_baseline": true}
// The first five, "machine" and "remeasure_baseline" are the caller's (cli: how `resume` makes the
// agents and the platform again), the rest the search's (create_run fills them). A key that an
// older run lacks reads as its default, so every run a database holds reads back (`show`,
// `resume`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "memory/memory.h"
#include "platform/platform.h"
#include "search/config.h"

namespace accelopt::search {

struct RunSettings {
  // The caller's.
  std::string agents;  // "tuner", "llm" or "hybrid"; empty: the caller gave its agents unnamed
  std::string platform = "cpu";  // as --platform names it
  bool remote_workers = false;   // evaluations go through the database's queue
  std::string config_file;       // absolute; empty: none
  std::string prompts;           // the user's prompt templates, absolute; empty: the built-in ones
  // The machine that evaluates, as its platform describes it (MachineDescription's facts, by
  // label: "cpu" or "gpu", "compiler", …); empty: not described (remote workers, older runs).
  Json machine = Json::object();
  // Keep this run's quiet reading of its baseline in place of the kept one (kept_baseline.h).
  bool remeasure_baseline = false;

  // The search's.
  SearchConfig search;
  std::string task;            // the task's name
  std::string task_directory;  // absolute
  std::string workload;        // create_run: empty asks for the task's default; then its name
  int64_t memory_horizon = 0;  // the newest memory entry when the run started: what it may see
  // Narrower still (a study's leave-one-out warm cell): only these runs' entries, none about these
  // tasks. Empty: no such limit. memory::Visibility says the rule.
  std::vector<int64_t> memory_runs;
  std::vector<std::string> memory_excluded_tasks;
  std::optional<platform::TimingOptions> baseline_timing;  // absent in runs older than it
  std::string start_kernel;  // the user's kernel the run starts from; empty: the task's baseline
  // What the platform compiles (".cpp", ".cu", an evaluator's ".py"): the name of every kernel
  // file written from the run. Runs older than it read ".cu" for platform "cuda", else ".cpp".
  std::string kernel_extension = ".cpp";

  memory::Visibility memory_visibility() const;

  Json to_json() const;
  // InternalError when a key holds a value of the wrong type.
  static RunSettings from_json(const Json& json);
};

}  // namespace accelopt::search
