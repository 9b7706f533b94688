// The models of a run, as the agents use them: `chat("planner", request)`.
//
// A call through a ModelSet goes: effective options → request hash → this run's answers (a
// deterministic model asked the identical request again: the same answer, unpaid) → replay
// (cassette hit: the recorded answer) → budget reservation → the model's client (concurrency
// limit, retries) → cassette (record, auto) → budget settlement → ledger. Every call, failed ones
// included, leaves a ledger record; BudgetExceeded and LlmError reach the caller.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "llm/budget.h"
#include "llm/client.h"
#include "llm/config.h"
#include "llm/http_client.h"
#include "llm/ledger.h"
#include "llm/replay.h"

namespace accelopt::llm {

struct ModelSetOptions {
  CallLedger* ledger = nullptr;  // not owned; may be null
  std::string run_id;
  ClientHooks hooks;
  // Makes the raw client of a model; default make_model_client. Tests put fakes here.
  std::function<std::unique_ptr<ModelClient>(const ModelConfig&)> make_client;
};

// A model answers deterministically when its temperature is 0 or its seed is fixed.
bool is_deterministic(const ChatOptions& options);

// The answers of a run's deterministic calls, by request hash: asking again is not paid twice.
// Two identical calls made at the same moment both go out; the later answer is kept. (thread-safe)
class AnswerCache {
 public:
  std::optional<ChatResponse> find(const std::string& request_hash) const;
  void keep(const std::string& request_hash, const ChatResponse& response);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, ChatResponse> answers_;
};

class ModelSet {
 public:
  explicit ModelSet(LlmConfig config, ModelSetOptions options = {});
  ~ModelSet();
  ModelSet(const ModelSet&) = delete;
  ModelSet& operator=(const ModelSet&) = delete;

  // The client of `role`'s model, with limits, budget, ledger and replay. (thread-safe)
  ModelClient& client_for_role(std::string_view role);
  // The same for a model by name; `role` is what the ledger records. (thread-safe)
  ModelClient& client_for_model(std::string_view model, std::string_view role);

  ChatResponse chat(std::string_view role, const ChatRequest& request,
                    const CancelToken& cancel = {});

  const LlmConfig& config() const { return config_; }
  const Budget& budget() const { return budget_; }

 private:
  ModelClient& raw_client(const ModelConfig& model);  // caller must hold mutex_

  LlmConfig config_;
  ModelSetOptions options_;
  Budget budget_;
  AnswerCache answers_;
  std::optional<CassetteStore> cassettes_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<ModelClient>> raw_;      // by model name
  std::map<std::string, std::unique_ptr<ModelClient>> managed_;  // by "role\nmodel"
};

}  // namespace accelopt::llm
