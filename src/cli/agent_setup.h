// What `optimize`, `resume` and `prompt` share about the agents: the configuration file, read once,
// and the options the LLM agents are made with, so that `accelopt prompt` renders exactly what a
// run's agents send.
#pragma once

#include <string>

#include "agents/llm_agents.h"
#include "llm/config.h"
#include "platform/registry.h"
#include "search/config.h"

namespace accelopt::cli {

// The TOML configuration file, read once: [search] and [memory] set the search, [models] and the
// tables beside it the LLM agents. A table no part reads is an error (a misspelt [serach] would
// otherwise leave the search on its preset without a word).
struct ConfigFile {
  std::string path;  // absolute; empty when there is none
  std::string text;
  llm::LlmConfig llm;
  bool has_models() const { return !llm.models.empty(); }
};

ConfigFile read_config(const std::string& path);

// UserError unless `mode` is tuner, llm or hybrid.
void check_mode(const std::string& mode);

// The LLM agents' options for a run in `mode` (llm or hybrid) on `platform` with `search`'s
// settings, and the user's prompt templates from `prompts` (empty: the built-in ones only).
agents::LlmAgentOptions llm_agent_options(const std::string& mode, const std::string& prompts,
                                          const platform::BuiltPlatform& platform,
                                          const search::SearchConfig& search);

}  // namespace accelopt::cli
