#include "llm/config.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>

#include "common/error.h"
#include "common/files.h"

namespace accelopt::llm {
namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Reads one table of the file, remembering which keys it has consumed so that the rest can be
// reported as unknown, with the nearest known key.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string path, const std::string& source)
      : table_(table), path_(std::move(path)), source_(source) {}

  [[noreturn]] void fail(const toml::node* node, std::string_view key, std::string_view why) const {
    std::string where = source_;
    if (node != nullptr && node->source().begin.line > 0) {
      where += fmt::format(":{}", node->source().begin.line);
    }
    throw UserError(
        fmt::format("{}: {}{}{}: {}", where, path_, path_.empty() ? "" : ".", key, why));
  }

  const toml::node* get(std::string_view key) {
    known_.emplace_back(key);
    return table_.get(key);
  }

  std::optional<std::string> string(std::string_view key) {
    const toml::node* node = get(key);
    if (node == nullptr) return std::nullopt;
    if (!node->is_string()) fail(node, key, "expected a string");
    return node->value<std::string>();
  }

  std::optional<double> number(std::string_view key, double min_value) {
    const toml::node* node = get(key);
    if (node == nullptr) return std::nullopt;
    if (!node->is_number()) fail(node, key, "expected a number");
    double value = *node->value<double>();
    if (value < min_value)
      fail(node, key, fmt::format("must be at least {}, got {}", min_value, value));
    return value;
  }

  std::optional<int64_t> integer(std::string_view key, int64_t min_value) {
    const toml::node* node = get(key);
    if (node == nullptr) return std::nullopt;
    if (!node->is_integer()) fail(node, key, "expected an integer");
    int64_t value = *node->value<int64_t>();
    if (value < min_value)
      fail(node, key, fmt::format("must be at least {}, got {}", min_value, value));
    return value;
  }

  std::optional<bool> boolean(std::string_view key) {
    const toml::node* node = get(key);
    if (node == nullptr) return std::nullopt;
    if (!node->is_boolean()) fail(node, key, "expected true or false");
    return node->value<bool>();
  }

  // Every key not read so far is a mistake.
  void reject_unknown() const {
    for (auto&& [key, node] : table_) {
      std::string name(key.str());
      if (std::find(known_.begin(), known_.end(), name) != known_.end()) continue;
      std::string suggestion = nearest_word(name, known_);
      fail(&node, name,
           suggestion.empty() ? fmt::format("unknown key (known: {})", fmt::join(known_, ", "))
                              : fmt::format("unknown key; did you mean '{}'?", suggestion));
    }
  }

  const std::string& path() const { return path_; }

 private:
  const toml::table& table_;
  std::string path_;
  const std::string& source_;
  std::vector<std::string> known_;
};

Json toml_to_json(const toml::node& node) {
  if (const auto* table = node.as_table()) {
    Json object = Json::object();
    for (auto&& [key, value] : *table) object[std::string(key.str())] = toml_to_json(value);
    return object;
  }
  if (const auto* array = node.as_array()) {
    Json list = Json::array();
    for (const auto& value : *array) list.push_back(toml_to_json(value));
    return list;
  }
  if (node.is_string()) return *node.value<std::string>();
  if (node.is_integer()) return *node.value<int64_t>();
  if (node.is_floating_point()) return *node.value<double>();
  if (node.is_boolean()) return *node.value<bool>();
  // Dates and times: their TOML text.
  std::ostringstream text;
  node.visit([&](const auto& value) { text << value; });
  return text.str();
}

toml::table parse_toml(std::string_view toml_text, const std::string& source) {
  try {
    return toml::parse(toml_text, source);
  } catch (const toml::parse_error& error) {
    throw UserError(fmt::format("{}:{}:{}: {}", source, error.source().begin.line,
                                error.source().begin.column, error.description()));
  }
}

bool has_scheme(std::string_view url) {
  return url.starts_with("http://") || url.starts_with("https://");
}

ModelConfig read_model(const std::string& name, const toml::node& node, const std::string& source) {
  const auto* table = node.as_table();
  if (table == nullptr) {
    throw UserError(fmt::format("{}:{}: models.{}: expected a table [models.{}]", source,
                                node.source().begin.line, name, name));
  }
  TableReader reader(*table, "models." + name, source);
  ModelConfig model;
  model.name = name;

  std::string provider = reader.string("provider").value_or("openai");
  if (provider == "openai") {
    model.provider = Provider::kOpenAi;
  } else if (provider == "anthropic") {
    model.provider = Provider::kAnthropic;
  } else {
    reader.fail(reader.get("provider"), "provider",
                fmt::format("'{}' is not a provider: use \"openai\" (any OpenAI-compatible server: "
                            "vLLM, SGLang, llama.cpp, Ollama, OpenRouter) or \"anthropic\"",
                            provider));
  }
  auto base_url = reader.string("base_url");
  if (!base_url) {
    if (model.provider == Provider::kAnthropic) {
      base_url = "https://api.anthropic.com";
    } else {
      reader.fail(table, "base_url", "missing (e.g. \"http://localhost:8000/v1\")");
    }
  }
  if (!has_scheme(*base_url)) {
    reader.fail(reader.get("base_url"), "base_url",
                fmt::format("'{}' must start with http:// or https://", *base_url));
  }
  model.base_url = *base_url;
  auto served = reader.string("model");
  if (!served || served->empty())
    reader.fail(table, "model", "missing: the model name the server knows");
  model.model = *served;
  model.api_key_env = reader.string("api_key_env").value_or("");
  if (model.api_key_env.starts_with("sk-") || model.api_key_env.size() > 64) {
    reader.fail(reader.get("api_key_env"), "api_key_env",
                "must name an environment variable that holds the key, not the key itself");
  }
  model.price_input_per_mtok = reader.number("price_input_per_mtok", 0).value_or(0);
  model.price_cached_input_per_mtok = reader.number("price_cached_input_per_mtok", 0);
  model.price_output_per_mtok = reader.number("price_output_per_mtok", 0).value_or(0);
  model.concurrency =
      static_cast<int>(reader.integer("concurrency", 1).value_or(model.concurrency));
  model.timeout_s = reader.number("timeout_s", 0.001).value_or(model.timeout_s);
  model.connect_timeout_s =
      reader.number("connect_timeout_s", 0.001).value_or(model.connect_timeout_s);
  model.max_retries =
      static_cast<int>(reader.integer("max_retries", 0).value_or(model.max_retries));
  model.backoff_initial_s = reader.number("backoff_initial_s", 0).value_or(model.backoff_initial_s);
  model.backoff_max_s = reader.number("backoff_max_s", 0).value_or(model.backoff_max_s);
  model.retry_after_max_s = reader.number("retry_after_max_s", 0).value_or(model.retry_after_max_s);
  model.retry_on_timeout = reader.boolean("retry_on_timeout").value_or(false);
  model.max_tokens_field = reader.string("max_tokens_field").value_or("");
  if (!model.max_tokens_field.empty() && model.max_tokens_field != "max_tokens" &&
      model.max_tokens_field != "max_completion_tokens") {
    reader.fail(reader.get("max_tokens_field"), "max_tokens_field",
                "must be \"max_tokens\" or \"max_completion_tokens\"");
  }
  model.anthropic_version = reader.string("anthropic_version").value_or(model.anthropic_version);

  ChatOptions& options = model.defaults;
  options.temperature = reader.number("temperature", 0);
  options.top_p = reader.number("top_p", 0);
  options.max_tokens = reader.integer("max_tokens", 1);
  options.seed = reader.integer("seed", std::numeric_limits<int64_t>::min());
  options.reasoning_effort = reader.string("reasoning_effort");
  options.thinking_budget = reader.integer("thinking_budget", 1);
  if (const toml::node* stop = reader.get("stop")) {
    if (stop->is_string()) {
      options.stop.push_back(*stop->value<std::string>());
    } else if (const auto* list = stop->as_array()) {
      for (const auto& item : *list) {
        if (!item.is_string()) reader.fail(stop, "stop", "expected strings");
        options.stop.push_back(*item.value<std::string>());
      }
    } else {
      reader.fail(stop, "stop", "expected a string or an array of strings");
    }
  }
  if (const toml::node* extra = reader.get("extra_body")) {
    if (!extra->is_table()) reader.fail(extra, "extra_body", "expected a table");
    options.extra_body = toml_to_json(*extra);
  }
  reader.reject_unknown();
  return model;
}

}  // namespace

std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string_view to_string(ReplayMode mode) {
  switch (mode) {
    case ReplayMode::kOff:
      return "off";
    case ReplayMode::kRecord:
      return "record";
    case ReplayMode::kReplay:
      return "replay";
    case ReplayMode::kAuto:
      return "auto";
  }
  return "off";
}

double ModelConfig::cost_usd(const Usage& usage) const {
  double cached_price = price_cached_input_per_mtok.value_or(price_input_per_mtok);
  int64_t cached = std::min(usage.cached_tokens, usage.prompt_tokens);
  double input = static_cast<double>(usage.prompt_tokens - cached) * price_input_per_mtok +
                 static_cast<double>(cached) * cached_price;
  return (input + static_cast<double>(usage.completion_tokens) * price_output_per_mtok) / 1e6;
}

const ModelConfig& LlmConfig::model(std::string_view name) const {
  auto found = models.find(std::string(name));
  if (found != models.end()) return found->second;
  std::vector<std::string> names;
  for (const auto& [known, model] : models) names.push_back(known);
  std::string suggestion = nearest_word(name, names);
  throw UserError(fmt::format("{}: no model '{}' under [models]{}", source, name,
                              suggestion.empty()
                                  ? fmt::format(" (known: {})", fmt::join(names, ", "))
                                  : fmt::format("; did you mean '{}'?", suggestion)));
}

const ModelConfig& LlmConfig::model_for_role(std::string_view role) const {
  auto found = roles.find(std::string(role));
  if (found != roles.end()) return model(found->second);
  if (models.size() == 1) return models.begin()->second;
  throw UserError(fmt::format("{}: no model for role '{}': add {} = \"MODEL\" under [roles]",
                              source, role, role));
}

void check_config_tables(std::string_view toml_text, const std::string& source,
                         std::span<const std::string_view> known_tables) {
  toml::table root = parse_toml(toml_text, source);
  std::vector<std::string> known(known_tables.begin(), known_tables.end());
  for (auto&& [key, node] : root) {
    std::string name(key.str());
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string where = fmt::format("{}:{}", source, node.source().begin.line);
    std::string tables = fmt::format("[{}]", fmt::join(known, "], ["));
    if (!node.is_table()) {
      throw UserError(fmt::format("{}: {}: a key outside any table; keys belong in one of {}",
                                  where, name, tables));
    }
    std::string suggestion = nearest_word(name, known);
    throw UserError(fmt::format("{}: [{}]: unknown table{}", where, name,
                                suggestion.empty()
                                    ? fmt::format(" (known: {})", tables)
                                    : fmt::format("; did you mean [{}]?", suggestion)));
  }
}

LlmConfig parse_llm_config(std::string_view toml_text, const std::string& source,
                           std::span<const std::string_view> role_names,
                           const std::filesystem::path& base_dir) {
  toml::table root = parse_toml(toml_text, source);
  LlmConfig config;
  config.source = source;
  config.role_names.assign(role_names.begin(), role_names.end());

  // Other parts own the other top-level tables (check_config_tables knows them all); a near miss of
  // ours is reported even without that check, as `llm ping` reads the file alone.
  std::vector<std::string> ours(kConfigTables.begin(), kConfigTables.end());
  for (auto&& [key, node] : root) {
    std::string name(key.str());
    if (std::find(ours.begin(), ours.end(), name) != ours.end()) continue;
    std::string suggestion = nearest_word(name, ours);
    if (!suggestion.empty() && name.size() >= 4) {
      throw UserError(fmt::format("{}:{}: [{}]: unknown table; did you mean [{}]?", source,
                                  node.source().begin.line, name, suggestion));
    }
  }

  if (const toml::node* models = root.get("models")) {
    const auto* table = models->as_table();
    if (table == nullptr) {
      throw UserError(fmt::format("{}:{}: models: expected tables [models.NAME]", source,
                                  models->source().begin.line));
    }
    for (auto&& [key, node] : *table) {
      std::string name(key.str());
      config.models.emplace(name, read_model(name, node, source));
    }
  }
  std::vector<std::string> model_names;
  for (const auto& [name, model] : config.models) model_names.push_back(name);

  if (const toml::node* roles = root.get("roles")) {
    if (!roles->is_table()) {
      throw UserError(fmt::format("{}: roles: expected a table", source));
    }
    TableReader reader(*roles->as_table(), "roles", source);
    for (std::string_view role : role_names) {
      auto model = reader.string(role);
      if (!model) continue;
      if (config.models.count(*model) == 0) {
        std::string suggestion = nearest_word(*model, model_names);
        reader.fail(
            reader.get(role), role,
            fmt::format("no model '{}' under [models]{}", *model,
                        suggestion.empty() ? "" : fmt::format("; did you mean '{}'?", suggestion)));
      }
      config.roles.emplace(role, *model);
    }
    reader.reject_unknown();
  }

  if (const toml::node* budget = root.get("budget")) {
    if (!budget->is_table()) throw UserError(fmt::format("{}: budget: expected a table", source));
    TableReader reader(*budget->as_table(), "budget", source);
    config.budget.usd = reader.number("usd", 0);
    config.budget.tokens = reader.integer("tokens", 0);
    config.budget.calls = reader.integer("calls", 0);
    reader.reject_unknown();
  }

  if (const toml::node* replay = root.get("replay")) {
    if (!replay->is_table()) throw UserError(fmt::format("{}: replay: expected a table", source));
    TableReader reader(*replay->as_table(), "replay", source);
    std::string mode = reader.string("mode").value_or("off");
    if (mode == "off") {
      config.replay.mode = ReplayMode::kOff;
    } else if (mode == "record") {
      config.replay.mode = ReplayMode::kRecord;
    } else if (mode == "replay") {
      config.replay.mode = ReplayMode::kReplay;
    } else if (mode == "auto") {
      config.replay.mode = ReplayMode::kAuto;
    } else {
      reader.fail(reader.get("mode"), "mode",
                  fmt::format("'{}' is not a mode: use off, record, replay or auto", mode));
    }
    auto dir = reader.string("dir");
    if (dir) {
      std::filesystem::path path(*dir);
      config.replay.dir = path.is_relative() && !base_dir.empty() ? base_dir / path : path;
    } else if (config.replay.mode != ReplayMode::kOff) {
      reader.fail(replay, "dir", "missing: the directory of the cassettes");
    }
    reader.reject_unknown();
  }
  return config;
}

LlmConfig load_llm_config(const std::filesystem::path& path,
                          std::span<const std::string_view> role_names) {
  std::string text = read_file(path);
  return parse_llm_config(text, path.string(), role_names, path.parent_path());
}

}  // namespace accelopt::llm
