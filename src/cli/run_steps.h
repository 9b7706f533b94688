// A run as `optimize` starts it and `resume` continues it, for commands that run many of them
// (`accelopt study`): the same steps (configuration, agents, platform, database, Ctrl-C), not a
// copy of them (loop_commands.cpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "cli/signals.h"
#include "search/beam_search.h"
#include "search/config.h"
#include "store/store.h"

namespace accelopt::cli {

struct NewRun {
  std::filesystem::path task_directory;
  std::string workload;     // empty: the task's default
  std::string config_path;  // the TOML configuration ([models], [roles], [budget]); empty: none
  std::string agents = "tuner";  // tuner | llm | hybrid
  search::SearchConfig search;   // used as given (the file's [search] is not read again)
  std::string workspace;
  std::string platform = "cpu";
  bool remote_workers = false;
  // A task without a baseline: write the naive kernel the run started from as its baseline file
  // (optimize's --save-baseline).
  bool save_baseline = false;
  // Told the new run's id before the run starts (may be empty).
  std::function<void(store::Store&, int64_t run_id)> created;
};

// Records and runs one run to its end (optimize's steps for one task). UserErrors before the run is
// recorded leave no run; a run whose agents cannot be made ends "failed: why".
search::RunSummary optimize_one(const NewRun& run, const StopOnSignals& signals);

// Continues `run_id` from its last checkpoint, as `accelopt resume RUN` does.
search::RunSummary resume_one(const std::string& workspace, int64_t run_id,
                              const StopOnSignals& signals);

// The exit code of a run that ended in `state` (0 finished or stopped, 128 + signal, 1 failed).
int run_exit_code(const std::string& state, const StopOnSignals& signals);

}  // namespace accelopt::cli
