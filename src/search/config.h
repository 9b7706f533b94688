// The settings of a search, their presets, and how they are read from the [search] and [memory]
// tables of the TOML configuration (docs/search.md lists every key). A run stores its effective
// settings as JSON, so `accelopt resume` continues with exactly the settings it started with.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/json.h"
#include "memory/memory.h"
#include "platform/platform.h"

namespace accelopt::search {

enum class Strategy : uint8_t { kBeam = 0, kRepeatedSampling = 1 };
std::string_view strategy_name(Strategy strategy);  // "beam", "repeated-sampling"

struct SearchConfig {
  std::string preset = "quick";
  Strategy strategy = Strategy::kBeam;
  int beam_width = 6;  // B
  int plans = 12;      // N per beam kernel
  // The LLM planner's N plans from one call asking for N distinct ones, instead of N draws, each
  // shown the plans drawn before it.
  bool plans_in_one_call = false;
  int implementations = 2;  // K per plan
  int iterations = 16;      // T
  int fix_rounds = 2;       // F
  memory::MemoryOptions memory;
  uint64_t seed = 1;
  int agent_concurrency = 4;  // agent calls in flight at once
  // Evaluations at once: on this machine each timed on cores of its own (at most cores / threads),
  // with --remote-workers as many jobs in the queue; 0: one here, the live workers' count remote.
  int eval_concurrency = 0;
  int hybrid_tuner_evals = 4;  // tuner moves tried on each LLM kernel entering the beam
  std::optional<int64_t> max_evaluations;
  std::optional<double> max_wall_seconds;
  platform::TimingOptions timing;

  Json to_json() const;
  static SearchConfig from_json(const Json& json);
};

// "paper" (B=6, N=12, K=2, T=16, TopK=8, ExpN=16, 2 % timing target) or "quick" (B=2, N=4, K=1,
// T=3, looser timing: a few minutes on a small workload). UserError for another name.
SearchConfig preset(std::string_view name);

// The top-level tables of the configuration file this part reads.
inline constexpr std::array<std::string_view, 2> kConfigTables = {"search", "memory"};

// Overrides `config` with the keys of the [search] and [memory] tables of `path`; unknown keys in
// them are UserErrors "FILE: search.KEY: ...". Other tables are left to their parts.
void apply_config_file(SearchConfig& config, const std::filesystem::path& path);
// The same for a file's text already read (`path` names it in messages).
void apply_config_text(SearchConfig& config, std::string_view toml_text,
                       const std::filesystem::path& path);

}  // namespace accelopt::search
