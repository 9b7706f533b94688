// The record of one model call, and the ledger interface that keeps such records: who asked (run,
// role), which model, what it cost, how it ended. `llm` writes records; `store` keeps them in the
// kernel database. The type lives here, below both, so that neither depends on the other.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"

namespace accelopt {

// How a call ended. Stored in the ledger: the values never change meaning.
enum class CallStatus : uint8_t {
  kOk = 0,
  kBadRequest = 1,       // 400, 413, 422: the request is wrong
  kUnauthorized = 2,     // 401, 403, or the API key is missing
  kNotFound = 3,         // 404: wrong model name or base_url
  kRateLimited = 4,      // 429 still after the last retry
  kServerError = 5,      // 5xx, 408, 409 still after the last retry
  kTimeout = 6,          // no complete answer within timeout_s
  kConnectionError = 7,  // could not connect, or the connection broke
  kMalformedResponse = 8,
  kCancelled = 9,
  kBudgetExceeded = 10,
  kReplayMiss = 11,
  kConfigError = 12,
};

std::string_view to_string(CallStatus status);
CallStatus call_status_from_string(std::string_view text);  // kServerError when unknown

struct CallRecord {
  std::string run_id;
  std::string role;
  std::string model;  // the [models] name
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t reasoning_tokens = 0;
  int64_t cached_tokens = 0;
  bool usage_estimated = false;
  double cost_usd = 0;
  double latency_s = 0;
  CallStatus status = CallStatus::kOk;
  int retries = 0;
  std::string request_hash;
  std::string timestamp;  // UTC, ISO 8601
  std::string error;      // empty when status is kOk
  bool replayed = false;  // answered from a cassette
  bool reused = false;    // answered by an identical earlier call of the run: not paid again

  Json to_json() const;
  static CallRecord from_json(const Json& json);
};

class CallLedger {
 public:
  virtual ~CallLedger() = default;
  virtual void record(const CallRecord& record) = 0;  // durable when it returns (thread-safe)
  // The records of one run, in the order they were made; an empty run_id selects all. (thread-safe)
  virtual std::vector<CallRecord> records(const std::string& run_id) const = 0;
};

}  // namespace accelopt
