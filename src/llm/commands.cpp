#include "llm/commands.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "llm/config.h"
#include "llm/models.h"

namespace accelopt::llm {

int run_llm_ping(const std::filesystem::path& config_path, const std::string& model_name,
                 std::ostream& out, ClientHooks hooks) {
  LlmConfig config = load_llm_config(config_path);
  const ModelConfig& model = config.model(model_name);
  config.replay.mode = ReplayMode::kOff;
  config.budget = {};
  MemoryLedger ledger;
  ModelSetOptions options;
  options.ledger = &ledger;
  options.run_id = "ping";
  options.hooks = std::move(hooks);
  ModelSet models(config, std::move(options));

  ChatRequest request;
  request.messages.push_back({"user", "Reply with the single word: pong"});
  if (!model.defaults.max_tokens && !model.defaults.thinking_budget) {
    request.options.max_tokens = 256;  // room for a reasoning model's thoughts
  }
  fmt::print(out, "model {} ({}) at {}\n", model.name, model.model, model.base_url);
  try {
    ChatResponse response = models.client_for_model(model.name, "ping").complete(request);
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
    fmt::print(out, "cost      ${:.6f}\n", cost);
    if (!response.model.empty()) fmt::print(out, "served by {}\n", response.model);
    return 0;
  } catch (const LlmError& error) {
    fmt::print(out, "ping failed ({}): {}\n", to_string(error.status()), error.what());
    return 1;
  }
}

namespace {

void print_table(std::ostream& out, std::string_view title,
                 const std::map<std::string, CallTotals>& rows) {
  fmt::print(out, "{:<14} {:>6} {:>6} {:>11} {:>11} {:>10} {:>10} {:>11} {:>9}\n", title, "calls",
             "failed", "prompt", "completion", "reasoning", "cached", "cost_usd", "time_s");
  for (const auto& [name, totals] : rows) {
    fmt::print(out, "{:<14} {:>6} {:>6} {:>11} {:>11} {:>10} {:>10} {:>11.4f} {:>9.1f}\n",
               name.empty() ? "-" : name, totals.calls, totals.failed_calls, totals.prompt_tokens,
               totals.completion_tokens, totals.reasoning_tokens, totals.cached_tokens,
               totals.cost_usd, totals.latency_s);
  }
}

}  // namespace

int print_cost(const CallLedger& ledger, const std::string& run_id, std::ostream& out) {
  std::vector<CallRecord> records = ledger.records(run_id);
  if (records.empty()) {
    fmt::print(out, "no LLM calls recorded for run {}\n", run_id);
    return 1;
  }
  fmt::print(out, "run {}\n\n", run_id);
  print_table(out, "role", totals_by_role(records));
  fmt::print(out, "\n");
  print_table(out, "model", totals_by_model(records));
  fmt::print(out, "\n");
  print_table(out, "total", {{"all", total(records)}});
  bool estimated = std::any_of(records.begin(), records.end(),
                               [](const CallRecord& record) { return record.usage_estimated; });
  if (estimated) fmt::print(out, "\nsome usage is estimated: a server sent none\n");
  return 0;
}

}  // namespace accelopt::llm
