// What the `accelopt llm ping MODEL` and `accelopt cost RUN` subcommands do, for cli to call.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include "llm/http_client.h"
#include "llm/ledger.h"

namespace accelopt::llm {

// Sends a tiny request to `model` (replay off, no budget) and prints the latency, the answer, the
// usage and the cost. Returns 0 when an answer came, 1 otherwise (the cause printed). Throws
// UserError for a bad config file or an unknown model.
int run_llm_ping(const std::filesystem::path& config, const std::string& model, std::ostream& out,
                 ClientHooks hooks = {});

// Prints the totals of `run_id` per role, per model and overall. Returns 0; 1 when the run has
// no recorded calls.
int print_cost(const CallLedger& ledger, const std::string& run_id, std::ostream& out);

}  // namespace accelopt::llm
