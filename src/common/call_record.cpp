#include "common/call_record.h"

#include <utility>

namespace accelopt {
namespace {

constexpr std::pair<CallStatus, std::string_view> kStatusNames[] = {
    {CallStatus::kOk, "ok"},
    {CallStatus::kBadRequest, "bad_request"},
    {CallStatus::kUnauthorized, "unauthorized"},
    {CallStatus::kNotFound, "not_found"},
    {CallStatus::kRateLimited, "rate_limited"},
    {CallStatus::kServerError, "server_error"},
    {CallStatus::kTimeout, "timeout"},
    {CallStatus::kConnectionError, "connection_error"},
    {CallStatus::kMalformedResponse, "malformed_response"},
    {CallStatus::kCancelled, "cancelled"},
    {CallStatus::kBudgetExceeded, "budget_exceeded"},
    {CallStatus::kReplayMiss, "replay_miss"},
    {CallStatus::kConfigError, "config_error"},
};

}  // namespace

std::string_view to_string(CallStatus status) {
  for (const auto& [value, name] : kStatusNames) {
    if (value == status) return name;
  }
  return "unknown";
}

CallStatus call_status_from_string(std::string_view text) {
  for (const auto& [value, name] : kStatusNames) {
    if (name == text) return value;
  }
  return CallStatus::kServerError;
}

Json CallRecord::to_json() const {
  return Json{{"run_id", run_id},
              {"role", role},
              {"model", model},
              {"prompt_tokens", prompt_tokens},
              {"completion_tokens", completion_tokens},
              {"reasoning_tokens", reasoning_tokens},
              {"cached_tokens", cached_tokens},
              {"usage_estimated", usage_estimated},
              {"cost_usd", cost_usd},
              {"latency_s", latency_s},
              {"status", to_string(status)},
              {"retries", retries},
              {"request_hash", request_hash},
              {"timestamp", timestamp},
              {"error", error},
              {"replayed", replayed},
              {"reused", reused}};
}

CallRecord CallRecord::from_json(const Json& json) {
  CallRecord record;
  record.run_id = json.at("run_id").get<std::string>();
  record.role = json.at("role").get<std::string>();
  record.model = json.at("model").get<std::string>();
  record.prompt_tokens = json.at("prompt_tokens").get<int64_t>();
  record.completion_tokens = json.at("completion_tokens").get<int64_t>();
  record.reasoning_tokens = json.at("reasoning_tokens").get<int64_t>();
  record.cached_tokens = json.at("cached_tokens").get<int64_t>();
  record.usage_estimated = json.value("usage_estimated", false);
  record.cost_usd = json.at("cost_usd").get<double>();
  record.latency_s = json.at("latency_s").get<double>();
  record.status = call_status_from_string(json.at("status").get<std::string>());
  record.retries = json.at("retries").get<int>();
  record.request_hash = json.at("request_hash").get<std::string>();
  record.timestamp = json.at("timestamp").get<std::string>();
  record.error = json.value("error", "");
  record.replayed = json.value("replayed", false);
  record.reused = json.value("reused", false);
  return record;
}

}  // namespace accelopt
