// What the `accelopt llm ping MODEL` subcommand does, and the check of the configured models a run
// makes before it starts, for cli to call. (`accelopt cost RUN` prints through report/run_text.h.)
#pragma once

#include <filesystem>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "llm/config.h"
#include "llm/http_client.h"
#include "llm/ledger.h"

namespace accelopt::llm {

// A ping waits this long for an answer by default, not the model's run timeout (600 s by default):
// a server that does not answer a one-word request in this time is not ready for a run.
inline constexpr double kPingTimeoutSeconds = 30;

// Sends a tiny request to `model` (replay off, no budget, at most `timeout_s` per attempt) and
// prints the latency, the answer, the usage and the cost; an empty `model` pings every configured
// model, one after another. Returns 0 when every answer came, 1 otherwise (the cause printed).
// Throws UserError for a bad config file (read with `role_names`, load_llm_config) or an unknown
// model.
int run_llm_ping(const std::filesystem::path& config, std::span<const std::string_view> role_names,
                 const std::string& model, std::ostream& out, ClientHooks hooks = {},
                 double timeout_s = kPingTimeoutSeconds);

// How one model answered a ping.
struct ModelCheck {
  std::string model;  // the [models] name
  bool reachable = false;
  CallStatus status = CallStatus::kOk;
  std::string error;  // empty when reachable: which model, where, and why not
  double latency_s = 0;
  // The ping's ledger records (role "preflight", run id "check"): the caller books them to the run
  // they precede, so that the ledger holds every call the server saw.
  std::vector<CallRecord> calls;
};

// Pings the models the configuration's roles use, all at once, as `llm ping` does (replay off, no
// budget), each within `timeout_s`. For the CLI to call before a run starts, so that a run does not
// begin with an unreachable model; a run in replay mode needs no server and should skip it. Throws
// UserError when a role has no model (the config names which key to add).
std::vector<ModelCheck> check_models(const LlmConfig& config,
                                     double timeout_s = kPingTimeoutSeconds,
                                     ClientHooks hooks = {});

}  // namespace accelopt::llm
