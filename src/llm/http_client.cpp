#include "llm/http_client.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include "llm/http.h"
#include "llm/protocol.h"

namespace accelopt::llm {
namespace {

using Clock = std::chrono::steady_clock;

// A counting semaphore whose wait gives up when the call is cancelled.
class Slots {
 public:
  explicit Slots(int count) : free_(count) {}

  void acquire(const CancelToken& cancel) {
    std::unique_lock lock(mutex_);
    while (free_ == 0) {
      if (cancel.cancelled()) throw LlmError(CallStatus::kCancelled, "cancelled");
      changed_.wait_for(lock, std::chrono::milliseconds(20));
    }
    --free_;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      ++free_;
    }
    changed_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int free_;
};

class SlotGuard {
 public:
  SlotGuard(Slots& slots, const CancelToken& cancel) : slots_(slots) { slots_.acquire(cancel); }
  ~SlotGuard() { slots_.release(); }
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;

 private:
  Slots& slots_;
};

// Replaces every occurrence of `secret` in `text` (servers echo parts of a rejected key).
std::string redact(std::string text, const std::string& secret) {
  if (secret.size() < 4) return text;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
    text.replace(at, secret.size(), "[redacted]");
  }
  return text;
}

bool retryable(CallStatus status) {
  return status == CallStatus::kRateLimited || status == CallStatus::kServerError ||
         status == CallStatus::kConnectionError;
}

class HttpModelClient : public ModelClient {
 public:
  HttpModelClient(const ModelConfig& model, ClientHooks hooks)
      : model_(model),
        hooks_(std::move(hooks)),
        slots_(model.concurrency),
        random_(std::random_device{}()) {
    if (!hooks_.sleep) hooks_.sleep = cancellable_sleep;
    if (!hooks_.getenv) {
      hooks_.getenv = [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe)
        if (value == nullptr) return std::nullopt;
        return std::string(value);
      };
    }
  }

  ChatResponse complete(const ChatRequest& raw_request, const CancelToken& cancel) override {
    auto start = Clock::now();
    ChatRequest request = raw_request;
    request.options = model_.defaults.merged_with(raw_request.options);
    if (request.messages.empty()) {
      throw LlmError(CallStatus::kBadRequest,
                     fmt::format("a request to model {} has no messages", model_.name));
    }
    WireRequest wire = build_wire_request(model_, request);
    std::string api_key;
    if (!model_.api_key_env.empty()) {
      api_key = hooks_.getenv(model_.api_key_env).value_or("");
      if (api_key.empty()) {
        throw LlmError(CallStatus::kUnauthorized,
                       fmt::format("API key missing: set {} (model {} at {})", model_.api_key_env,
                                   model_.name, model_.base_url));
      }
      wire.headers.push_back(auth_header(model_, api_key));
    }
    HttpRequest http;
    http.url = wire.url;
    http.headers = std::move(wire.headers);
    http.body = dump_json(wire.body);
    http.timeout_s = model_.timeout_s;
    http.connect_timeout_s = model_.connect_timeout_s;

    for (int attempt = 0;; ++attempt) {
      if (cancel.cancelled()) throw cancelled(attempt);
      HttpResponse answer;
      {
        SlotGuard slot(slots_, cancel);
        answer = http_post(http, cancel);
      }
      auto [status, message] = judge(answer, request, api_key);
      if (status == CallStatus::kOk) {
        try {
          ChatResponse response = parse_wire_response(model_, request, answer.body);
          response.retries = attempt;
          response.latency_s = std::chrono::duration<double>(Clock::now() - start).count();
          return response;
        } catch (const LlmError& error) {
          status = error.status();
          message = redact(error.what(), api_key);
        }
      }
      bool may_retry =
          retryable(status) || (status == CallStatus::kTimeout && model_.retry_on_timeout);
      if (!may_retry || attempt >= model_.max_retries) {
        if (attempt > 0) message += fmt::format(" (after {} retries)", attempt);
        throw LlmError(status, message, attempt);
      }
      double wait = parse_retry_after(answer.retry_after);
      double wait_ms = parse_retry_after(answer.retry_after_ms);
      if (wait_ms >= 0) wait = wait_ms / 1000;
      if (wait >= 0) {
        wait = std::min(wait, model_.retry_after_max_s);
      } else {
        wait = backoff_seconds(model_, attempt, jitter());
      }
      hooks_.sleep(wait, cancel);
    }
  }

 private:
  LlmError cancelled(int attempt) const {
    return LlmError(CallStatus::kCancelled,
                    fmt::format("call to model {} at {} cancelled", model_.name, model_.base_url),
                    attempt);
  }

  double jitter() {
    std::lock_guard lock(random_mutex_);
    return std::uniform_real_distribution<double>(0.5, 1.0)(random_);
  }

  // What an HTTP exchange amounts to, with a message that says what to fix.
  std::pair<CallStatus, std::string> judge(const HttpResponse& answer, const ChatRequest& request,
                                           const std::string& api_key) const {
    const std::string& url = model_.base_url;
    const std::string& name = model_.name;
    switch (answer.transport) {
      case CallStatus::kOk:
        break;
      case CallStatus::kCancelled:
        throw cancelled(0);
      case CallStatus::kTimeout:
        return {CallStatus::kTimeout,
                fmt::format("no answer from {} within timeout_s = {} (model {}): raise timeout_s "
                            "in [models.{}] if the model is slow",
                            url, model_.timeout_s, name, name)};
      case CallStatus::kConfigError:
        return {CallStatus::kConfigError, fmt::format("bad base_url '{}' for model {}: {}", url,
                                                      name, answer.transport_error)};
      case CallStatus::kMalformedResponse:
        return {CallStatus::kMalformedResponse,
                fmt::format("malformed answer from {} (model {}): {}", url, name,
                            answer.transport_error)};
      default:
        if (!answer.connected) {
          return {CallStatus::kConnectionError,
                  fmt::format("cannot connect to {} (model {}): {}; is the server running?", url,
                              name, answer.transport_error)};
        }
        return {CallStatus::kConnectionError,
                fmt::format("connection to {} (model {}) broke after {} bytes of the answer: {}; "
                            "first bytes: {}",
                            url, name, answer.body.size(), answer.transport_error,
                            redact(excerpt(answer.body), api_key))};
    }
    long code = answer.status;
    if (code >= 200 && code < 300) return {CallStatus::kOk, ""};
    std::string said = redact(server_error_text(answer.body), api_key);
    if (code == 401 || code == 403) {
      std::string fix = model_.api_key_env.empty()
                            ? fmt::format(
                                  "the server wants an API key: set api_key_env in "
                                  "[models.{}] and export that variable",
                                  name)
                            : fmt::format("check the key in ${}", model_.api_key_env);
      return {CallStatus::kUnauthorized, fmt::format("unauthorized (HTTP {}) at {} for model {}: "
                                                     "{}; server said: {}",
                                                     code, url, name, fix, said)};
    }
    if (code == 404) {
      return {CallStatus::kNotFound,
              fmt::format("model '{}' not found at {} (HTTP 404): check model and base_url in "
                          "[models.{}]; server said: {}",
                          model_.model, url, name, said)};
    }
    if (code == 429) {
      return {CallStatus::kRateLimited,
              fmt::format("rate limited (HTTP 429) at {} (model {}): {}", url, name, said)};
    }
    if (code == 408 || code == 409 || code >= 500) {
      return {CallStatus::kServerError,
              fmt::format("server error (HTTP {}) at {} (model {}): {}", code, url, name, said)};
    }
    (void)request;
    if (code >= 300 && code < 400) {
      // Not followed: a redirect to another host would carry the API key there.
      return {CallStatus::kBadRequest,
              fmt::format("{} redirects (HTTP {}) to '{}' (model {}): set base_url in [models.{}] "
                          "to the address it points to",
                          url, code, answer.location, name, name)};
    }
    return {CallStatus::kBadRequest,
            fmt::format("request refused (HTTP {}) by {} (model {}): {}", code, url, name, said)};
  }

  ModelConfig model_;
  ClientHooks hooks_;
  Slots slots_;
  std::mutex random_mutex_;
  std::mt19937_64 random_;
};

}  // namespace

void cancellable_sleep(double seconds, const CancelToken& cancel) {
  auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(std::max(0.0, seconds)));
  while (!cancel.cancelled()) {
    auto now = Clock::now();
    if (now >= until) return;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(until - now, std::chrono::milliseconds(20)));
  }
}

double backoff_seconds(const ModelConfig& model, int retry, double jitter) {
  double wait = model.backoff_initial_s * std::pow(2.0, retry);
  return std::min(wait, model.backoff_max_s) * jitter;
}

std::unique_ptr<ModelClient> make_model_client(const ModelConfig& model, ClientHooks hooks) {
  return std::make_unique<HttpModelClient>(model, std::move(hooks));
}

}  // namespace accelopt::llm
