// What a model call is: a request (messages and options), an answer (content, reasoning, usage),
// the errors a call can end with, and the one interface every model client implements.
//
// A ModelClient is thread-safe: agents call one from many threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/call_record.h"
#include "common/json.h"

namespace accelopt::llm {

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

// Every option is optional: a request's value wins over the model's default from the config, and
// an option set in neither is not sent, so the server's own default applies.
struct ChatOptions {
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<int64_t> max_tokens;
  std::optional<int64_t> seed;
  std::optional<std::string> reasoning_effort;  // "low", "medium", "high" (gpt-oss, o-series)
  std::optional<int64_t> thinking_budget;       // Anthropic extended thinking, in tokens
  std::vector<std::string> stop;
  Json extra_body = Json::object();  // merged into the request body last: server-specific options

  // `overrides`' set fields over this one's; extra_body is merged key by key.
  ChatOptions merged_with(const ChatOptions& overrides) const;
  Json to_json() const;  // only the fields that are set
  static ChatOptions from_json(const Json& json);
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  ChatOptions options;
  // What identifies this call from run to run, for record/replay (replay.h). Agents whose prompts
  // hold figures measured in the run (latencies, speedups) set it from their role, the call's
  // place in the run and the prompt with those figures left out. Empty: the request itself.
  std::string replay_key;
};

struct Usage {
  int64_t prompt_tokens = 0;      // all input tokens, cached ones included
  int64_t completion_tokens = 0;  // all output tokens, reasoning included
  int64_t reasoning_tokens = 0;   // part of completion_tokens
  int64_t cached_tokens = 0;      // part of prompt_tokens
  bool estimated = false;         // the server sent no usage: ≈ characters / 4
};

struct ChatResponse {
  std::string content;
  std::string reasoning;  // kept apart from content
  std::string
      finish_reason;       // as the server said it: "stop", "length", "end_turn", "max_tokens", ...
  bool truncated = false;  // stopped by the token limit
  Usage usage;
  double latency_s = 0;   // of the whole call, retries and waits included
  int retries = 0;        // attempts beyond the first
  std::string model;      // the model name the server reported
  bool replayed = false;  // read from a cassette, not from a server

  Json to_json() const;
  static ChatResponse from_json(const Json& json);
};

// How a call ended, and the record the ledger keeps of it, live below llm (common/call_record.h)
// so that the kernel database can keep them too.
using accelopt::call_status_from_string;
using accelopt::CallStatus;
using accelopt::to_string;

// A call that did not produce an answer. The message names the model, the URL and what to fix; it
// never holds an API key.
class LlmError : public std::runtime_error {
 public:
  LlmError(CallStatus status, const std::string& message, int retries = 0)
      : std::runtime_error(message), status_(status), retries_(retries) {}
  CallStatus status() const { return status_; }
  int retries() const { return retries_; }

 private:
  CallStatus status_;
  int retries_;
};

enum class BudgetCap : uint8_t { kUsd = 0, kTokens = 1, kCalls = 2 };

// A run reached (or a call would pass) one of its budget caps. The run should stop cleanly.
class BudgetExceeded : public LlmError {
 public:
  BudgetExceeded(BudgetCap cap, const std::string& message)
      : LlmError(CallStatus::kBudgetExceeded, message), cap_(cap) {}
  BudgetCap cap() const { return cap_; }

 private:
  BudgetCap cap_;
};

// Shared by copies: cancel() on any copy cancels them all. A call checks it while it connects,
// waits for the answer, waits for a concurrency slot and sleeps between retries.
class CancelToken {
 public:
  CancelToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() const { flag_->store(true); }
  bool cancelled() const { return flag_->load(); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

class ModelClient {
 public:
  virtual ~ModelClient() = default;
  // Throws LlmError (or BudgetExceeded) when no answer comes. (thread-safe)
  virtual ChatResponse complete(const ChatRequest& request, const CancelToken& cancel = {}) = 0;
};

}  // namespace accelopt::llm
