#include "search/config.h"

#include <fmt/format.h>

#include <toml++/toml.h>

#include "common/error.h"
#include "common/files.h"
#include "llm/config.h"

namespace accelopt::search {

std::string_view strategy_name(Strategy strategy) {
  return strategy == Strategy::kBeam ? "beam" : "repeated-sampling";
}

namespace {

Strategy parse_strategy(std::string_view text) {
  if (text == "beam") return Strategy::kBeam;
  if (text == "repeated-sampling") return Strategy::kRepeatedSampling;
  throw UserError(fmt::format("search.strategy: '{}' is not one of beam, repeated-sampling", text));
}

}  // namespace

Json SearchConfig::to_json() const {
  Json json{{"preset", preset},
            {"strategy", strategy_name(strategy)},
            {"beam_width", beam_width},
            {"plans", plans},
            {"plans_in_one_call", plans_in_one_call},
            {"implementations", implementations},
            {"iterations", iterations},
            {"fix_rounds", fix_rounds},
            {"seed", seed},
            {"agent_concurrency", agent_concurrency},
            {"eval_concurrency", eval_concurrency},
            {"hybrid_tuner_evals", hybrid_tuner_evals},
            {"timing", timing.to_json()},
            {"memory",
             {{"top_k", memory.top_k},
              {"exp_n", memory.exp_n},
              {"positive_threshold", memory.positive_threshold},
              {"negative_threshold", memory.negative_threshold},
              {"scope", memory::scope_name(memory.scope)},
              {"retrieve_limit", memory.retrieve_limit}}}};
  json["max_evaluations"] = max_evaluations ? Json(*max_evaluations) : Json(nullptr);
  json["max_wall_seconds"] = max_wall_seconds ? Json(*max_wall_seconds) : Json(nullptr);
  return json;
}

SearchConfig SearchConfig::from_json(const Json& json) {
  SearchConfig config;
  config.preset = json.value("preset", config.preset);
  config.strategy = parse_strategy(json.value("strategy", "beam"));
  config.beam_width = json.value("beam_width", config.beam_width);
  config.plans = json.value("plans", config.plans);
  config.plans_in_one_call = json.value("plans_in_one_call", config.plans_in_one_call);
  config.implementations = json.value("implementations", config.implementations);
  config.iterations = json.value("iterations", config.iterations);
  config.fix_rounds = json.value("fix_rounds", config.fix_rounds);
  config.seed = json.value("seed", config.seed);
  config.agent_concurrency = json.value("agent_concurrency", config.agent_concurrency);
  config.eval_concurrency = json.value("eval_concurrency", config.eval_concurrency);
  config.hybrid_tuner_evals = json.value("hybrid_tuner_evals", config.hybrid_tuner_evals);
  if (json.contains("timing")) config.timing = platform::TimingOptions::from_json(json["timing"]);
  if (json.contains("memory")) {
    const Json& memory = json["memory"];
    config.memory.top_k = memory.value("top_k", config.memory.top_k);
    config.memory.exp_n = memory.value("exp_n", config.memory.exp_n);
    config.memory.positive_threshold =
        memory.value("positive_threshold", config.memory.positive_threshold);
    config.memory.negative_threshold =
        memory.value("negative_threshold", config.memory.negative_threshold);
    config.memory.scope = memory::parse_scope(memory.value("scope", "task"));
    config.memory.retrieve_limit = memory.value("retrieve_limit", config.memory.retrieve_limit);
  }
  if (json.contains("max_evaluations") && !json["max_evaluations"].is_null()) {
    config.max_evaluations = json["max_evaluations"].get<int64_t>();
  }
  if (json.contains("max_wall_seconds") && !json["max_wall_seconds"].is_null()) {
    config.max_wall_seconds = json["max_wall_seconds"].get<double>();
  }
  return config;
}

SearchConfig preset(std::string_view name) {
  SearchConfig config;
  config.preset = std::string(name);
  if (name == "paper") {
    config.beam_width = 6;
    config.plans = 12;
    config.implementations = 2;
    config.iterations = 16;
    config.memory.top_k = 8;
    config.memory.exp_n = 16;
    config.memory.retrieve_limit = 16;
    config.timing.target_half_width = 0.02;
    config.timing.budget_seconds = 20;
    return config;
  }
  if (name == "quick") {
    config.beam_width = 2;
    config.plans = 4;
    config.implementations = 1;
    config.iterations = 3;
    config.fix_rounds = 1;
    config.memory.top_k = 4;
    config.memory.exp_n = 16;
    config.memory.retrieve_limit = 16;
    config.timing.target_half_width = 0.04;
    config.timing.budget_seconds = 4;
    config.timing.min_pairs = 6;
    return config;
  }
  throw UserError(fmt::format("unknown preset '{}': choose paper or quick", name));
}

namespace {

[[noreturn]] void bad_key(const std::filesystem::path& path, const std::string& key,
                          const std::string& why) {
  throw UserError(fmt::format("{}: {}: {}", path.string(), key, why));
}

int int_value(const toml::node& node, const std::filesystem::path& path, const std::string& key) {
  auto value = node.value<int64_t>();
  if (!value || !node.is_integer()) bad_key(path, key, "expected an integer");
  return static_cast<int>(*value);
}

double number_value(const toml::node& node, const std::filesystem::path& path,
                    const std::string& key) {
  auto value = node.value<double>();
  if (!value) bad_key(path, key, "expected a number");
  return *value;
}

// Where a key of `table` sits, and the nearest known key's name when one is near.
[[noreturn]] void unknown_key(const std::filesystem::path& path, const std::string& table,
                              const std::string& key, const toml::node& node,
                              const std::vector<std::string>& known) {
  std::string suggestion = llm::nearest_word(key, known);
  throw UserError(fmt::format(
      "{}:{}: {}.{}: unknown key{} (see docs/search.md)", path.string(), node.source().begin.line,
      table, key, suggestion.empty() ? "" : fmt::format("; did you mean '{}'?", suggestion)));
}

const std::vector<std::string> kSearchKeys = {"preset",
                                              "strategy",
                                              "beam_width",
                                              "plans",
                                              "plans_in_one_call",
                                              "implementations",
                                              "iterations",
                                              "fix_rounds",
                                              "seed",
                                              "agent_concurrency",
                                              "eval_concurrency",
                                              "hybrid_tuner_evals",
                                              "max_evaluations",
                                              "max_wall_seconds",
                                              "timing_target",
                                              "timing_budget_seconds",
                                              "timing_min_pairs",
                                              "timing_quiet_wait_seconds"};
const std::vector<std::string> kMemoryKeys = {
    "scope", "top_k", "exp_n", "retrieve_limit", "positive_threshold", "negative_threshold"};

bool bool_value(const toml::node& node, const std::filesystem::path& path, const std::string& key) {
  auto value = node.value<bool>();
  if (!value) bad_key(path, key, "expected true or false");
  return *value;
}

std::string string_value(const toml::node& node, const std::filesystem::path& path,
                         const std::string& key) {
  auto value = node.value<std::string>();
  if (!value) bad_key(path, key, "expected a string");
  return *value;
}

}  // namespace

void apply_config_file(SearchConfig& config, const std::filesystem::path& path) {
  apply_config_text(config, read_file(path), path);
}

void apply_config_text(SearchConfig& config, std::string_view toml_text,
                       const std::filesystem::path& path) {
  toml::table root;
  try {
    root = toml::parse(toml_text, path.string());
  } catch (const toml::parse_error& error) {
    throw UserError(
        fmt::format("{}:{}: {}", path.string(), error.source().begin.line, error.description()));
  }
  if (const toml::table* search = root["search"].as_table()) {
    if (auto name = (*search)["preset"].value<std::string>()) config = preset(*name);
    for (const auto& [raw_key, node] : *search) {
      std::string key(raw_key.str());
      std::string full = "search." + key;
      if (key == "preset") continue;
      if (key == "strategy")
        config.strategy = parse_strategy(string_value(node, path, full));
      else if (key == "beam_width")
        config.beam_width = int_value(node, path, full);
      else if (key == "plans")
        config.plans = int_value(node, path, full);
      else if (key == "plans_in_one_call")
        config.plans_in_one_call = bool_value(node, path, full);
      else if (key == "implementations")
        config.implementations = int_value(node, path, full);
      else if (key == "iterations")
        config.iterations = int_value(node, path, full);
      else if (key == "fix_rounds")
        config.fix_rounds = int_value(node, path, full);
      else if (key == "seed")
        config.seed = static_cast<uint64_t>(int_value(node, path, full));
      else if (key == "agent_concurrency")
        config.agent_concurrency = int_value(node, path, full);
      else if (key == "eval_concurrency")
        config.eval_concurrency = int_value(node, path, full);
      else if (key == "hybrid_tuner_evals")
        config.hybrid_tuner_evals = int_value(node, path, full);
      else if (key == "max_evaluations")
        config.max_evaluations = int_value(node, path, full);
      else if (key == "max_wall_seconds")
        config.max_wall_seconds = number_value(node, path, full);
      else if (key == "timing_target")
        config.timing.target_half_width = number_value(node, path, full);
      else if (key == "timing_budget_seconds")
        config.timing.budget_seconds = number_value(node, path, full);
      else if (key == "timing_min_pairs")
        config.timing.min_pairs = int_value(node, path, full);
      else if (key == "timing_quiet_wait_seconds")
        config.timing.quiet_wait_seconds = number_value(node, path, full);
      else
        unknown_key(path, "search", key, node, kSearchKeys);
    }
  }
  if (const toml::table* memory = root["memory"].as_table()) {
    for (const auto& [raw_key, node] : *memory) {
      std::string key(raw_key.str());
      std::string full = "memory." + key;
      if (key == "scope")
        config.memory.scope = memory::parse_scope(string_value(node, path, full));
      else if (key == "top_k")
        config.memory.top_k = int_value(node, path, full);
      else if (key == "exp_n")
        config.memory.exp_n = int_value(node, path, full);
      else if (key == "retrieve_limit")
        config.memory.retrieve_limit = int_value(node, path, full);
      else if (key == "positive_threshold")
        config.memory.positive_threshold = number_value(node, path, full);
      else if (key == "negative_threshold")
        config.memory.negative_threshold = number_value(node, path, full);
      else
        unknown_key(path, "memory", key, node, kMemoryKeys);
    }
  }
  if (config.beam_width < 1 || config.plans < 1 || config.implementations < 1 ||
      config.iterations < 0 || config.fix_rounds < 0 || config.eval_concurrency < 0) {
    throw UserError(
        fmt::format("{}: search: beam_width, plans and implementations must be at least "
                    "1; iterations, fix_rounds and eval_concurrency at least 0",
                    path.string()));
  }
}

}  // namespace accelopt::search
