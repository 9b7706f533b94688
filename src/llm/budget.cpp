#include "llm/budget.h"

#include <fmt/format.h>

#include "llm/protocol.h"

namespace accelopt::llm {

void Budget::reserve(const Spend& estimate) {
  std::lock_guard lock(mutex_);
  if (caps_.calls && spent_.calls + reserved_.calls + 1 > *caps_.calls) {
    throw BudgetExceeded(BudgetCap::kCalls,
                         fmt::format("budget reached: calls cap of {} ({} made, {} in flight); "
                                     "raise [budget] calls to go on",
                                     *caps_.calls, spent_.calls, reserved_.calls));
  }
  if (caps_.tokens && spent_.tokens + reserved_.tokens + estimate.tokens > *caps_.tokens) {
    throw BudgetExceeded(
        BudgetCap::kTokens,
        fmt::format("budget reached: tokens cap of {} ({} spent, {} in flight, this call ≈ {}); "
                    "raise [budget] tokens to go on",
                    *caps_.tokens, spent_.tokens, reserved_.tokens, estimate.tokens));
  }
  if (caps_.usd && spent_.usd + reserved_.usd + estimate.usd > *caps_.usd) {
    throw BudgetExceeded(
        BudgetCap::kUsd,
        fmt::format("budget reached: USD cap of {:.4f} ({:.4f} spent, {:.4f} in flight, this call "
                    "≈ {:.4f}); raise [budget] usd to go on",
                    *caps_.usd, spent_.usd, reserved_.usd, estimate.usd));
  }
  reserved_.usd += estimate.usd;
  reserved_.tokens += estimate.tokens;
  reserved_.calls += 1;
}

void Budget::settle(const Spend& estimate, const Spend& actual) {
  std::lock_guard lock(mutex_);
  reserved_.usd -= estimate.usd;
  reserved_.tokens -= estimate.tokens;
  reserved_.calls -= 1;
  spent_.usd += actual.usd;
  spent_.tokens += actual.tokens;
  spent_.calls += actual.calls;
}

Spend Budget::spent() const {
  std::lock_guard lock(mutex_);
  return spent_;
}

Spend estimate_spend(const ModelConfig& model, const ChatRequest& request) {
  Usage usage;
  usage.prompt_tokens = estimate_prompt_tokens(request);
  usage.completion_tokens = request.options.max_tokens.value_or(0);
  return Spend{model.cost_usd(usage), usage.prompt_tokens + usage.completion_tokens, 1};
}

}  // namespace accelopt::llm
