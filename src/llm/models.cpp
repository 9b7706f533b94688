#include "llm/models.h"

#include <fmt/format.h>

#include <chrono>

#include "common/error.h"
#include "common/timestamp.h"

namespace accelopt::llm {
namespace {

// The first words of the last message, to name a request in an error.
std::string first_words(const ChatRequest& request) {
  if (request.messages.empty()) return "";
  std::string text;
  bool space = false;
  for (char c : request.messages.back().content) {
    if (text.size() >= 60) {
      text += "…";
      break;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !text.empty();
      continue;
    }
    if (space) text += ' ';
    space = false;
    text += c;
  }
  return text;
}

struct Shared {
  const std::string& run_id;
  CallLedger* ledger;
  Budget& budget;
  AnswerCache& answers;
  const CassetteStore* cassettes;
  ReplayMode mode;
};

class ManagedClient : public ModelClient {
 public:
  ManagedClient(Shared shared, const ModelConfig& model, std::string role, ModelClient& raw)
      : shared_(shared), model_(model), role_(std::move(role)), raw_(raw) {}

  ChatResponse complete(const ChatRequest& request, const CancelToken& cancel) override {
    auto start = std::chrono::steady_clock::now();
    ChatRequest effective = request;
    effective.options = model_.defaults.merged_with(request.options);
    CallRecord record;
    record.run_id = shared_.run_id;
    record.role = role_;
    record.model = model_.name;
    record.request_hash = request_hash(model_, effective);
    record.timestamp = utc_timestamp();
    auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    auto fail = [&](const LlmError& error) {
      record.status = error.status();
      record.error = error.what();
      record.retries = error.retries();
      record.latency_s = elapsed();
      if (shared_.ledger != nullptr) shared_.ledger->record(record);
    };

    bool deterministic = is_deterministic(effective.options);
    if (deterministic) {
      if (std::optional<ChatResponse> earlier = shared_.answers.find(record.request_hash)) {
        record.reused = true;
        record.replayed = earlier->replayed;
        record.latency_s = elapsed();
        if (shared_.ledger != nullptr) shared_.ledger->record(record);
        return *earlier;
      }
    }

    std::string cassette = replay_hash(model_, effective);
    std::optional<ChatResponse> recorded;
    if (shared_.mode == ReplayMode::kReplay || shared_.mode == ReplayMode::kAuto) {
      try {
        recorded = shared_.cassettes->load(cassette);
      } catch (const LlmError& error) {
        if (shared_.mode == ReplayMode::kReplay) {
          fail(error);
          throw;
        }
      }
      if (!recorded && shared_.mode == ReplayMode::kReplay) {
        LlmError miss(CallStatus::kReplayMiss,
                      fmt::format("replay: no recording of call {} (model {}, role {}, last "
                                  "message \"{}\") in {}; record it with [replay] mode = "
                                  "\"record\" or \"auto\"",
                                  cassette, model_.name, role_, first_words(request),
                                  shared_.cassettes->dir().string()));
        fail(miss);
        throw miss;
      }
    }

    Spend estimate = estimate_spend(model_, effective);
    try {
      shared_.budget.reserve(estimate);
    } catch (const BudgetExceeded& error) {
      fail(error);
      throw;
    }

    ChatResponse response;
    if (recorded) {
      response = *recorded;
      response.replayed = true;
    } else {
      try {
        response = raw_.complete(effective, cancel);
      } catch (const LlmError& error) {
        shared_.budget.settle(estimate, Spend{0, 0, 1});
        fail(error);
        throw;
      } catch (...) {
        shared_.budget.settle(estimate, Spend{0, 0, 1});
        throw;
      }
    }
    double cost = model_.cost_usd(response.usage);
    shared_.budget.settle(
        estimate, Spend{cost, response.usage.prompt_tokens + response.usage.completion_tokens, 1});
    if (!recorded && (shared_.mode == ReplayMode::kRecord || shared_.mode == ReplayMode::kAuto)) {
      shared_.cassettes->save(cassette, canonical_request(model_, effective), response);
    }
    if (deterministic) shared_.answers.keep(record.request_hash, response);
    record.prompt_tokens = response.usage.prompt_tokens;
    record.completion_tokens = response.usage.completion_tokens;
    record.reasoning_tokens = response.usage.reasoning_tokens;
    record.cached_tokens = response.usage.cached_tokens;
    record.usage_estimated = response.usage.estimated;
    record.cost_usd = cost;
    record.retries = response.retries;
    record.latency_s = recorded ? elapsed() : response.latency_s;
    record.replayed = response.replayed;
    if (shared_.ledger != nullptr) shared_.ledger->record(record);
    return response;
  }

 private:
  Shared shared_;
  const ModelConfig& model_;
  std::string role_;
  ModelClient& raw_;
};

}  // namespace

bool is_deterministic(const ChatOptions& options) {
  return (options.temperature && *options.temperature == 0) || options.seed.has_value();
}

std::optional<ChatResponse> AnswerCache::find(const std::string& request_hash) const {
  std::lock_guard lock(mutex_);
  auto found = answers_.find(request_hash);
  if (found == answers_.end()) return std::nullopt;
  return found->second;
}

void AnswerCache::keep(const std::string& request_hash, const ChatResponse& response) {
  std::lock_guard lock(mutex_);
  answers_[request_hash] = response;
}

ModelSet::ModelSet(LlmConfig config, ModelSetOptions options)
    : config_(std::move(config)), options_(std::move(options)), budget_(config_.budget) {
  if (config_.replay.mode != ReplayMode::kOff) cassettes_.emplace(config_.replay.dir);
  if (!options_.make_client) {
    ClientHooks hooks = options_.hooks;
    options_.make_client = [hooks](const ModelConfig& model) {
      return make_model_client(model, hooks);
    };
  }
}

ModelSet::~ModelSet() = default;

ModelClient& ModelSet::raw_client(const ModelConfig& model) {
  auto& client = raw_[model.name];
  if (!client) client = options_.make_client(model);
  return *client;
}

ModelClient& ModelSet::client_for_model(std::string_view model_name, std::string_view role) {
  const ModelConfig& model = config_.model(model_name);
  std::lock_guard lock(mutex_);
  auto& client = managed_[fmt::format("{}\n{}", role, model.name)];
  if (!client) {
    Shared shared{
        options_.run_id,    options_.ledger, budget_, answers_, cassettes_ ? &*cassettes_ : nullptr,
        config_.replay.mode};
    client = std::make_unique<ManagedClient>(shared, model, std::string(role), raw_client(model));
  }
  return *client;
}

ModelClient& ModelSet::client_for_role(std::string_view role) {
  const std::vector<std::string>& roles = config_.role_names;
  if (std::find(roles.begin(), roles.end(), role) == roles.end()) {
    std::string suggestion = nearest_word(role, roles);
    throw UserError(fmt::format("unknown role '{}'{}", role,
                                suggestion.empty()
                                    ? fmt::format(" (roles: {})", fmt::join(roles, ", "))
                                    : fmt::format("; did you mean '{}'?", suggestion)));
  }
  return client_for_model(config_.model_for_role(role).name, role);
}

ChatResponse ModelSet::chat(std::string_view role, const ChatRequest& request,
                            const CancelToken& cancel) {
  return client_for_role(role).complete(request, cancel);
}

}  // namespace accelopt::llm
