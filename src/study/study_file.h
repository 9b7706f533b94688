// A study file (docs/study.md): a grid of runs, tasks × variants × seeds (× a warm pass), that
// every cell runs under the same budget, so that variants compare at equal cost.
//
//   [study]                      name, tasks, workload, seeds, agents, preset, memory_order,
//   [study.budget]               fraction; max_evaluations, max_usd, max_tokens, max_wall_seconds
//   [[study.variant]]            name; search = {…}, memory = {…} or "off", roles = {…}, agents
//   [search] [memory] [models.*] [roles] [replay]   the base configuration, as in accelopt.toml
//
// A variant's configuration is the base tables with its own tables laid over them, key by key, and
// the study's budget; it is written out as an ordinary configuration file (variant_config_text), so
// each cell is an ordinary run that `resume` can continue alone. Errors name the file, the line and
// the key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace accelopt::study {

struct Budget {
  std::optional<int64_t> max_evaluations;
  std::optional<double> max_usd;
  std::optional<int64_t> max_tokens;
  std::optional<double> max_wall_seconds;
};

struct Variant {
  std::string name;
  std::string agents;     // tuner | llm | hybrid
  bool memory_on = true;  // false: memory = "off", or repeated sampling (which reads none)
  int line = 0;           // where [[study.variant]] begins, for messages
};

// How memory-on cells meet the memory that earlier cells made (docs/study.md, "Memory order").
enum class MemoryOrder : uint8_t {
  kCold = 0,          // every cell sees the memory as of the study's start, and its own run's
  kColdThenWarm = 1,  // then a warm pass of the memory-on variants, seeing the whole cold pass's
  kLeaveOneOut = 2,   // then a warm pass, each cell seeing its variant's cold cells' memory of the
                      // other tasks only
};

struct Cell {
  std::string variant;
  std::string task;  // the task's folder name ("silu")
  std::filesystem::path task_directory;
  uint64_t seed = 1;
  bool warm = false;
  std::string key() const;  // "beam/silu/seed1/cold"
};

struct Study {
  std::filesystem::path path;  // absolute
  std::string text;            // the file as read
  std::string name;
  std::vector<std::filesystem::path> tasks;  // absolute
  std::string workload;
  std::vector<uint64_t> seeds;
  std::string agents = "tuner";
  std::string preset = "quick";
  MemoryOrder memory_order = MemoryOrder::kCold;
  double fraction = 0.9;  // "cost to reach this fraction of the best found"
  Budget budget;
  std::vector<Variant> variants;
  bool smoke = false;  // see make_smoke

  // Cold pass first; within a pass seed by seed, variant by variant, task by task. The variants'
  // order rotates by one each seed (seed 2 starts with the second variant).
  std::vector<Cell> cells() const;
  const Variant& variant(const std::string& name) const;  // InternalError when unknown
};

// Reads and checks a study file. `find_task` turns a task as written (relative to the study file,
// or as `--task` finds it) into its folder, throwing UserError when there is none.
Study load_study(
    const std::filesystem::path& path,
    const std::function<std::filesystem::path(const std::filesystem::path&)>& find_task);

// The study made small, to check that it runs end to end (`accelopt study FILE --smoke`): its name
// gets "-smoke" (a study of its own), the first seed and the first task only, the small workload,
// at most 3 evaluations a cell and brief timing (half a second a kernel, no waiting for a quiet
// machine). Every variant and the memory order are kept (a warm cell then reads only its own
// task's memory, or under leave-one-out none). Its figures compare nothing.
void make_smoke(Study& study);
inline constexpr int64_t kSmokeEvaluations = 3;
inline constexpr size_t kSmokeTasks = 1;

// The configuration file of `variant` (TOML text): base tables, the variant's over them, the
// study's preset and budget. UserError "FILE:LINE: variant 'x': …" for a key the search or the
// model part refuses.
std::string variant_config_text(const Study& study, const Variant& variant);

// "cold", "cold-then-warm", "leave-one-out"
std::string_view memory_order_name(MemoryOrder order);

}  // namespace accelopt::study
