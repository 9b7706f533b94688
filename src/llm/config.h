// The `llm` part of accelopt's TOML configuration: named models, the model each agent role uses,
// the run's budget and the record/replay mode. See docs/llm.md for an example of every key.
//
// Other parts keep their own top-level tables in the same file; this loader reads [models.*],
// [roles], [budget] and [replay] and rejects unknown keys inside them (naming the nearest known
// key). The role names are not this part's: the caller passes them (roles::kRoleNames), since the
// roles part sits above llm.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/client.h"

namespace accelopt::llm {

enum class Provider : uint8_t { kOpenAi = 0, kAnthropic = 1 };

struct ModelConfig {
  std::string name;  // the key under [models]
  Provider provider = Provider::kOpenAi;
  std::string base_url;
  std::string model;        // the name the server knows the model by
  std::string api_key_env;  // empty: send no key (local servers)
  double price_input_per_mtok = 0;
  std::optional<double> price_cached_input_per_mtok;  // unset: price_input_per_mtok
  double price_output_per_mtok = 0;
  int concurrency = 4;
  double timeout_s = 600;
  double connect_timeout_s = 10;
  int max_retries = 3;
  double backoff_initial_s = 1;  // doubled at each retry, with jitter
  double backoff_max_s = 30;
  double retry_after_max_s = 120;  // a longer Retry-After is cut to this
  bool retry_on_timeout = false;   // a server that hung for timeout_s usually hangs again
  std::string max_tokens_field;    // "max_tokens" or "max_completion_tokens"; empty: by base_url
  std::string anthropic_version = "2023-06-01";
  ChatOptions defaults;

  // Cost of a call with this usage in USD.
  double cost_usd(const Usage& usage) const;
};

struct BudgetConfig {
  std::optional<double> usd;
  std::optional<int64_t> tokens;  // prompt + completion, over the run
  std::optional<int64_t> calls;
};

enum class ReplayMode : uint8_t { kOff = 0, kRecord = 1, kReplay = 2, kAuto = 3 };
std::string_view to_string(ReplayMode mode);

struct ReplayConfig {
  ReplayMode mode = ReplayMode::kOff;
  std::filesystem::path dir;  // relative paths are relative to the config file
};

struct LlmConfig {
  std::string source;  // the file it came from, for messages
  std::map<std::string, ModelConfig> models;
  std::vector<std::string> role_names;       // the roles [roles] may name, as the caller gave them
  std::map<std::string, std::string> roles;  // role → model name
  BudgetConfig budget;
  ReplayConfig replay;

  // The model for `role`: its [roles] entry, or the only model when there is just one.
  // Throws UserError naming the file and the key to add.
  const ModelConfig& model_for_role(std::string_view role) const;
  const ModelConfig& model(std::string_view name) const;  // UserError with "did you mean"
};

// The top-level tables this part reads.
inline constexpr std::array<std::string_view, 4> kConfigTables = {"models", "roles", "budget",
                                                                  "replay"};

// Throws UserError "FILE:LINE: [NAME]: unknown table; did you mean [KNOWN]?" (the known tables
// listed when none is near) for a top-level table or key of the file that is not one of
// `known_tables`, which the caller gathers from every part that reads the file. The parts' loaders
// check only the keys inside their own tables.
void check_config_tables(std::string_view toml_text, const std::string& source,
                         std::span<const std::string_view> known_tables);

// Throws UserError "FILE:LINE: KEY: why" for syntax errors, unknown keys (a role not among
// `role_names` included), wrong types and values.
LlmConfig load_llm_config(const std::filesystem::path& path,
                          std::span<const std::string_view> role_names);
LlmConfig parse_llm_config(std::string_view toml_text, const std::string& source,
                           std::span<const std::string_view> role_names,
                           const std::filesystem::path& base_dir = {});

// The nearest of `candidates` to `word` within a small edit distance; empty when none is near.
std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace accelopt::llm
