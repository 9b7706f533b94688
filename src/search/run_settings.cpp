#include "search/run_settings.h"

#include <fmt/format.h>

#include "common/error.h"

namespace accelopt::search {
namespace {

constexpr const char* kBaselineTimingUse =
    "the baseline, the memory's re-timing and the final confirmation";

}  // namespace

memory::Visibility RunSettings::memory_visibility() const {
  return memory::Visibility{memory_horizon, memory_runs, memory_excluded_tasks};
}

Json RunSettings::to_json() const {
  Json json{{"agents", agents},
            {"platform", platform},
            {"remote_workers", remote_workers},
            {"config_file", config_file},
            {"prompts", prompts},
            {"search", search.to_json()},
            {"task", task},
            {"task_directory", task_directory},
            {"workload", workload},
            {"memory_horizon", memory_horizon},
            {"kernel_extension", kernel_extension}};
  if (baseline_timing) {
    json["baseline_timing"] = baseline_timing->to_json();
    json["baseline_timing"]["used_for"] = kBaselineTimingUse;
  }
  if (!memory_runs.empty()) json["memory_runs"] = memory_runs;
  if (!memory_excluded_tasks.empty()) json["memory_excluded_tasks"] = memory_excluded_tasks;
  if (!start_kernel.empty()) json["start_kernel"] = start_kernel;
  if (!machine.empty()) json["machine"] = machine;
  if (remeasure_baseline) json["remeasure_baseline"] = true;
  return json;
}

RunSettings RunSettings::from_json(const Json& json) {
  RunSettings settings;
  try {
    settings.agents = json.value("agents", settings.agents);
    settings.platform = json.value("platform", settings.platform);
    settings.remote_workers = json.value("remote_workers", settings.remote_workers);
    settings.config_file = json.value("config_file", settings.config_file);
    settings.prompts = json.value("prompts", settings.prompts);
    if (json.contains("search")) settings.search = SearchConfig::from_json(json.at("search"));
    settings.task = json.value("task", settings.task);
    settings.task_directory = json.value("task_directory", settings.task_directory);
    settings.workload = json.value("workload", settings.workload);
    settings.memory_horizon = json.value("memory_horizon", settings.memory_horizon);
    settings.memory_runs = json.value("memory_runs", settings.memory_runs);
    settings.memory_excluded_tasks =
        json.value("memory_excluded_tasks", settings.memory_excluded_tasks);
    if (json.contains("baseline_timing")) {
      settings.baseline_timing = platform::TimingOptions::from_json(json.at("baseline_timing"));
    }
    settings.start_kernel = json.value("start_kernel", settings.start_kernel);
    settings.kernel_extension =
        json.value("kernel_extension", settings.platform == "cuda" ? ".cu" : ".cpp");
    if (json.contains("machine")) settings.machine = json.at("machine");
    settings.remeasure_baseline = json.value("remeasure_baseline", false);
  } catch (const Json::exception& error) {
    throw InternalError(fmt::format("a run's settings do not read: {}", error.what()));
  }
  return settings;
}

}  // namespace accelopt::search
