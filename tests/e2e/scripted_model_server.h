// A scripted OpenAI-compatible model server for end-to-end tests of the loop: it recognizes which
// agent is asking (from the system prompt, "You are the <role> of accelopt"), answers from a
// script, and records every request.
//
// How an answer is chosen, first match wins:
//   1. the responder, when one is set and returns an answer;
//   2. the role's queue (queue("executor", ...)), front first;
//   3. the rules, in the order added (role and "user prompt contains" must match; `times` limits);
//   4. a default per role: planner → a distinct plan (or the N plans a one-call prompt asks for),
//      executor → the current kernel unchanged, fixer → the failed kernel unchanged,
//      summarizer → a JSON insight; anything else → "OK".
// Usage in the answer is estimated (characters / 4), so token budgets work.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"

namespace accelopt::testing {

struct ScriptedRequest {
  std::string role;  // "planner", "executor", "fixer", "summarizer", or "unknown"
  std::string system, user;
  Json body;           // the request as sent
  std::string answer;  // what the server answered (empty for an error status)
  int http_status = 200;
};

struct ScriptRule {
  std::string role;           // empty: any role
  std::string when_contains;  // empty: always; else the user prompt must contain it
  std::string answer;         // the answer's whole content
  int times = -1;             // how often the rule may fire; -1: always
  int http_status = 200;      // other than 200: fail the call with this status instead
};

class ScriptedModelServer {
 public:
  using Responder = std::function<std::optional<std::string>(const ScriptedRequest&)>;

  ScriptedModelServer();                   // listening on 127.0.0.1 at an ephemeral port
  explicit ScriptedModelServer(int port);  // at `port` (0: an ephemeral one)
  ~ScriptedModelServer();
  ScriptedModelServer(const ScriptedModelServer&) = delete;
  ScriptedModelServer& operator=(const ScriptedModelServer&) = delete;

  std::string url() const;       // http://127.0.0.1:PORT
  std::string base_url() const;  // url() + "/v1", what a [models.*] base_url names
  // A config snippet: [models.<name>] at this server (no key, no retries) and [roles] for all four.
  std::string config_toml(const std::string& name = "scripted") const;

  // (thread-safe, also while requests arrive)
  ScriptedModelServer& on(ScriptRule rule);
  ScriptedModelServer& on(const std::string& role, const std::string& when_contains,
                          const std::string& answer, int times = -1);
  ScriptedModelServer& queue(const std::string& role, const std::string& answer);
  void set_responder(Responder responder);
  // Every answer comes `delay` after its request (a hosted model's latency); requests wait side
  // by side, not in turn.
  void set_delay(std::chrono::milliseconds delay);

  std::vector<ScriptedRequest> requests() const;
  std::vector<ScriptedRequest> requests(const std::string& role) const;
  int count(const std::string& role) const;

  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Answers in the shapes the agents read.
std::string plan_answer(const std::string& title, const std::string& body);
std::string kernel_answer(const std::string& source);  // prose, a ```cpp block, prose
std::string summary_answer(const std::string& title, const std::string& description,
                           const std::string& before = "", const std::string& after = "");
std::string no_optimization_answer();

// The source in the first ```cpp block after `heading` in a prompt ("## The current kernel",
// "## The failed kernel"); empty when there is none.
std::string code_after(const std::string& prompt, const std::string& heading);

// Kernels for tests/data/tasks/axpy (out = 2x + y over N floats) with known verdicts.
namespace axpy {
std::string faster();    // one scalar pass through a volatile: 8x lighter than slower()
std::string slower();    // correct, but eight scalar passes through a volatile
std::string broken();    // a missing semicolon: COMPILE_ERROR (the fixer's job)
std::string repaired();  // what a fixer answers for broken(): compiles and is correct
std::string wrong();     // out = x + y: INCORRECT_NUMERICAL
std::string hostile();   // writes a file, then computes the right answer: must not pass
std::string spinning();  // never returns: TIMEOUT
}  // namespace axpy

}  // namespace accelopt::testing
