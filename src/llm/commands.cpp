#include "llm/commands.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <future>
#include <set>

#include "common/error.h"
#include "llm/ledger.h"
#include "llm/models.h"

namespace accelopt::llm {

namespace {

// `config` as a ping uses it: no replay, no budget, and `timeout_s` for an answer.
LlmConfig ping_config(LlmConfig config, double timeout_s) {
  config.replay.mode = ReplayMode::kOff;
  config.budget = {};
  for (auto& [name, model] : config.models) {
    model.timeout_s = timeout_s;
    model.connect_timeout_s = std::min(model.connect_timeout_s, timeout_s);
  }
  return config;
}

ChatRequest ping_request(const ModelConfig& model) {
  ChatRequest request;
  request.messages.push_back({"user", "Reply with the single word: pong"});
  if (!model.defaults.max_tokens && !model.defaults.thinking_budget) {
    request.options.max_tokens = 256;  // room for a reasoning model's thoughts
  }
  return request;
}

}  // namespace

namespace {

// Pings `model` through `models`; 0 when an answer came, 1 otherwise (the cause printed).
int ping_model(ModelSet& models, const ModelConfig& model, std::ostream& out, double timeout_s) {
  fmt::print(out, "model {} ({}) at {}, waiting up to {} s\n", model.name, model.model,
             model.base_url, timeout_s);
  try {
    ChatResponse response =
        models.client_for_model(model.name, "ping").complete(ping_request(model));
    double cost = model.cost_usd(response.usage);
    fmt::print(out, "latency   {:.3f} s ({} retries)\n", response.latency_s, response.retries);
    fmt::print(out, "answer    {}\n", response.content.empty() ? "(empty)" : response.content);
    if (!response.reasoning.empty()) {
      fmt::print(out, "reasoning {} characters\n", response.reasoning.size());
    }
    fmt::print(out, "finish    {}{}\n",
               response.finish_reason.empty() ? "-" : response.finish_reason,
               response.truncated ? " (truncated)" : "");
    fmt::print(out, "usage     prompt {}, completion {} (reasoning {}), cached {}{}\n",
               response.usage.prompt_tokens, response.usage.completion_tokens,
               response.usage.reasoning_tokens, response.usage.cached_tokens,
               response.usage.estimated ? " (estimated: the server sent no usage)" : "");
    fmt::print(out, "cost      {}\n", format_usd(cost));
    if (!response.model.empty()) fmt::print(out, "served by {}\n", response.model);
    return 0;
  } catch (const LlmError& error) {
    fmt::print(out, "ping failed ({}): {}\n", to_string(error.status()), error.what());
    return 1;
  }
}

}  // namespace

int run_llm_ping(const std::filesystem::path& config_path,
                 std::span<const std::string_view> role_names, const std::string& model_name,
                 std::ostream& out, ClientHooks hooks, double timeout_s) {
  LlmConfig config = ping_config(load_llm_config(config_path, role_names), timeout_s);
  std::vector<const ModelConfig*> chosen;
  if (!model_name.empty()) {
    chosen.push_back(&config.model(model_name));
  } else {
    for (const auto& [name, model] : config.models) chosen.push_back(&model);
  }
  if (chosen.empty()) {
    throw UserError(fmt::format("{}: no [models] configured; nothing to ping (docs/llm.md)",
                                config_path.string()));
  }
  MemoryLedger ledger;
  ModelSetOptions options;
  options.ledger = &ledger;
  options.run_id = "ping";
  options.hooks = std::move(hooks);
  ModelSet models(config, std::move(options));
  int code = 0;
  for (const ModelConfig* model : chosen) {
    if (model != chosen.front()) out << "\n";
    code = std::max(code, ping_model(models, *model, out, timeout_s));
  }
  return code;
}

std::vector<ModelCheck> check_models(const LlmConfig& run_config, double timeout_s,
                                     ClientHooks hooks) {
  std::set<std::string> names;
  for (const std::string& role : run_config.role_names)
    names.insert(run_config.model_for_role(role).name);
  LlmConfig config = ping_config(run_config, timeout_s);
  MemoryLedger ledger;
  ModelSetOptions options;
  options.run_id = "check";
  options.ledger = &ledger;
  options.hooks = std::move(hooks);
  ModelSet models(config, std::move(options));
  std::vector<std::future<ModelCheck>> pings;
  for (const std::string& name : names) {
    pings.push_back(std::async(std::launch::async, [&models, &config, name] {
      const ModelConfig& model = config.model(name);
      ModelCheck check;
      check.model = name;
      try {
        ChatResponse response =
            models.client_for_model(name, "preflight").complete(ping_request(model));
        check.reachable = true;
        check.latency_s = response.latency_s;
      } catch (const LlmError& error) {
        check.status = error.status();
        check.error =
            fmt::format("model {} ({} at {}) is not reachable ({}): {}", name, model.model,
                        model.base_url, to_string(error.status()), error.what());
      }
      return check;
    }));
  }
  std::vector<ModelCheck> checks;
  for (auto& ping : pings) checks.push_back(ping.get());
  for (const CallRecord& call : ledger.records("check")) {
    for (ModelCheck& check : checks) {
      if (check.model == call.model) check.calls.push_back(call);
    }
  }
  return checks;
}

}  // namespace accelopt::llm
