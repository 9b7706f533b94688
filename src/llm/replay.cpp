#include "llm/replay.h"

#include <fmt/format.h>

#include "common/files.h"
#include "common/hash.h"
#include "llm/protocol.h"

namespace accelopt::llm {
namespace {

constexpr std::string_view kFormat = "accelopt-cassette";
constexpr int kVersion = 1;

// nlohmann::json (unlike ordered_json) keeps object keys sorted: the canonical form.
std::string canonical_dump(const Json& value) {
  return nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string checksum(const Json& request, const Json& response) {
  return sha256_hex(canonical_dump(Json{{"request", request}, {"response", response}}));
}

}  // namespace

Json canonical_request(const ModelConfig& model, const ChatRequest& request) {
  Json messages = Json::array();
  for (const auto& message : request.messages) {
    messages.push_back({{"role", message.role}, {"content", message.content}});
  }
  return Json{
      {"model", model.model}, {"messages", messages}, {"options", request.options.to_json()}};
}

std::string request_hash(const ModelConfig& model, const ChatRequest& request) {
  return sha256_hex(canonical_dump(canonical_request(model, request)));
}

std::string replay_hash(const ModelConfig& model, const ChatRequest& request) {
  if (request.replay_key.empty()) return request_hash(model, request);
  return sha256_hex(canonical_dump(Json{{"model", model.model},
                                        {"replay_key", request.replay_key},
                                        {"options", request.options.to_json()}}));
}

CassetteStore::CassetteStore(std::filesystem::path dir) : dir_(std::move(dir)) {}

std::filesystem::path CassetteStore::path_for(const std::string& hash) const {
  return dir_ / (hash + ".json");
}

std::optional<ChatResponse> CassetteStore::load(const std::string& hash) const {
  std::filesystem::path path = path_for(hash);
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return std::nullopt;
  auto corrupt = [&](std::string_view why) {
    return LlmError(
        CallStatus::kReplayMiss,
        fmt::format("cassette {} is corrupt ({}): delete it and record again", path.string(), why));
  };
  Json json = Json::parse(read_file(path), nullptr, false);
  if (json.is_discarded() || !json.is_object()) throw corrupt("not valid JSON: torn write?");
  if (json.value("format", "") != kFormat || json.value("version", 0) != kVersion) {
    throw corrupt("not an accelopt cassette of version 1");
  }
  if (!json.contains("request") || !json.contains("response") ||
      json.value("checksum", "") != checksum(json["request"], json["response"])) {
    throw corrupt("checksum mismatch");
  }
  try {
    return ChatResponse::from_json(json["response"]);
  } catch (const Json::exception& what) {
    throw corrupt(what.what());
  }
}

void CassetteStore::save(const std::string& hash, const Json& request,
                         const ChatResponse& response) const {
  std::filesystem::create_directories(dir_);
  Json answer = response.to_json();
  Json cassette{{"format", kFormat},  {"version", kVersion},
                {"hash", hash},       {"request", request},
                {"response", answer}, {"checksum", checksum(request, answer)}};
  write_file_atomic(path_for(hash), dump_json(cassette, 2) + "\n");
}

}  // namespace accelopt::llm
