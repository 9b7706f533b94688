#include "llm/client.h"

namespace accelopt::llm {
namespace {

template <typename T>
void set_if(Json& json, const char* key, const std::optional<T>& value) {
  if (value) json[key] = *value;
}

template <typename T>
std::optional<T> get_optional(const Json& json, const char* key) {
  auto found = json.find(key);
  if (found == json.end() || found->is_null()) return std::nullopt;
  return found->get<T>();
}

}  // namespace

ChatOptions ChatOptions::merged_with(const ChatOptions& overrides) const {
  ChatOptions merged = *this;
  if (overrides.temperature) merged.temperature = overrides.temperature;
  if (overrides.top_p) merged.top_p = overrides.top_p;
  if (overrides.max_tokens) merged.max_tokens = overrides.max_tokens;
  if (overrides.seed) merged.seed = overrides.seed;
  if (overrides.reasoning_effort) merged.reasoning_effort = overrides.reasoning_effort;
  if (overrides.thinking_budget) merged.thinking_budget = overrides.thinking_budget;
  if (!overrides.stop.empty()) merged.stop = overrides.stop;
  if (overrides.extra_body.is_object()) {
    if (!merged.extra_body.is_object()) merged.extra_body = Json::object();
    for (const auto& [key, value] : overrides.extra_body.items()) merged.extra_body[key] = value;
  }
  return merged;
}

Json ChatOptions::to_json() const {
  Json json = Json::object();
  set_if(json, "temperature", temperature);
  set_if(json, "top_p", top_p);
  set_if(json, "max_tokens", max_tokens);
  set_if(json, "seed", seed);
  set_if(json, "reasoning_effort", reasoning_effort);
  set_if(json, "thinking_budget", thinking_budget);
  if (!stop.empty()) json["stop"] = stop;
  if (extra_body.is_object() && !extra_body.empty()) json["extra_body"] = extra_body;
  return json;
}

ChatOptions ChatOptions::from_json(const Json& json) {
  ChatOptions options;
  options.temperature = get_optional<double>(json, "temperature");
  options.top_p = get_optional<double>(json, "top_p");
  options.max_tokens = get_optional<int64_t>(json, "max_tokens");
  options.seed = get_optional<int64_t>(json, "seed");
  options.reasoning_effort = get_optional<std::string>(json, "reasoning_effort");
  options.thinking_budget = get_optional<int64_t>(json, "thinking_budget");
  if (json.contains("stop")) options.stop = json.at("stop").get<std::vector<std::string>>();
  if (json.contains("extra_body")) options.extra_body = json.at("extra_body");
  return options;
}

Json ChatResponse::to_json() const {
  return Json{{"content", content},
              {"reasoning", reasoning},
              {"finish_reason", finish_reason},
              {"truncated", truncated},
              {"usage",
               {{"prompt_tokens", usage.prompt_tokens},
                {"completion_tokens", usage.completion_tokens},
                {"reasoning_tokens", usage.reasoning_tokens},
                {"cached_tokens", usage.cached_tokens},
                {"estimated", usage.estimated}}},
              {"latency_s", latency_s},
              {"retries", retries},
              {"model", model}};
}

ChatResponse ChatResponse::from_json(const Json& json) {
  ChatResponse response;
  response.content = json.at("content").get<std::string>();
  response.reasoning = json.at("reasoning").get<std::string>();
  response.finish_reason = json.at("finish_reason").get<std::string>();
  response.truncated = json.at("truncated").get<bool>();
  const Json& usage = json.at("usage");
  response.usage.prompt_tokens = usage.at("prompt_tokens").get<int64_t>();
  response.usage.completion_tokens = usage.at("completion_tokens").get<int64_t>();
  response.usage.reasoning_tokens = usage.at("reasoning_tokens").get<int64_t>();
  response.usage.cached_tokens = usage.at("cached_tokens").get<int64_t>();
  response.usage.estimated = usage.at("estimated").get<bool>();
  response.latency_s = json.at("latency_s").get<double>();
  response.retries = json.at("retries").get<int>();
  response.model = json.at("model").get<std::string>();
  return response;
}

}  // namespace accelopt::llm
