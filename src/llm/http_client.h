// A ModelClient that speaks to one configured model over HTTP: retries with backoff, Retry-After,
// timeouts, a concurrency limit and cancellation. No budget, ledger or replay: ModelSet adds those.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "llm/client.h"
#include "llm/config.h"

namespace accelopt::llm {

// What the client takes from the world, replaceable in tests.
struct ClientHooks {
  // Waits `seconds` unless `cancel` fires first. Default: a real, cancellable sleep.
  std::function<void(double seconds, const CancelToken& cancel)> sleep;
  // Reads an environment variable. Default: std::getenv.
  std::function<std::optional<std::string>(const std::string& name)> getenv;
};

std::unique_ptr<ModelClient> make_model_client(const ModelConfig& model, ClientHooks hooks = {});

// A real sleep that wakes early (within ~20 ms) when `cancel` fires.
void cancellable_sleep(double seconds, const CancelToken& cancel);

// The wait before retry number `retry` (0 for the first): initial·2^retry, at most max, times a
// jitter factor in [0.5, 1].
double backoff_seconds(const ModelConfig& model, int retry, double jitter);

}  // namespace accelopt::llm
