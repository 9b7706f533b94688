// Record and replay of model calls, so that a run can be repeated exactly with no network.
//
// A request's hash is the SHA-256 of canonical JSON (keys sorted, no spaces) of the served model
// name, the messages and the effective options: not the API key, not the base URL, so the same
// request to a local server or a hosted one replays the same answer.
//
// A cassette is named by the call's replay hash: the request hash, or, when the request carries a
// replay_key, the hash of the model name, that key and the options. The agents' prompts show
// latencies and speedups measured in the run, which differ in every run; their replay_key leaves
// those figures out (and names the role and the call's place), so a replayed run finds every call
// whose kernels, plans and place are the same.
//
// Cassette format: one file per request, <dir>/<hash>.json, holding
//   {"format":"accelopt-cassette","version":1,"hash":…,"request":{…},"response":{…},
//    "checksum": sha256 of the canonical JSON of {"request","response"}}
// written atomically (temporary file, fsync, rename). A cassette that does not parse or whose
// checksum differs (a torn or edited file) is reported as corrupt, never used.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "llm/client.h"
#include "llm/config.h"

namespace accelopt::llm {

// `request.options` must be the effective ones (defaults merged).
Json canonical_request(const ModelConfig& model, const ChatRequest& request);
std::string request_hash(const ModelConfig& model, const ChatRequest& request);
// The name of the call's cassette (see above). `request.options` must be the effective ones.
std::string replay_hash(const ModelConfig& model, const ChatRequest& request);

class CassetteStore {
 public:
  explicit CassetteStore(std::filesystem::path dir);

  // The recorded answer, or nullopt when none. Throws LlmError(kReplayMiss) for a corrupt one.
  std::optional<ChatResponse> load(const std::string& hash) const;
  void save(const std::string& hash, const Json& request, const ChatResponse& response) const;
  std::filesystem::path path_for(const std::string& hash) const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace accelopt::llm
