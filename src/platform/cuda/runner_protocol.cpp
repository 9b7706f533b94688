#include "platform/cuda/runner_protocol.h"

#include <charconv>

namespace accelopt::platform::cuda {

std::optional<RunnerReply> parse_runner_reply(std::string_view line) {
  size_t space = line.find(' ');
  std::string_view word = line.substr(0, space);
  std::string_view rest = space == std::string_view::npos ? "" : line.substr(space + 1);
  RunnerReply reply;
  reply.text = std::string(rest);
  if (word == "READY") {
    reply.kind = ReplyKind::kReady;
  } else if (word == "FAIL") {
    reply.kind = ReplyKind::kFail;
  } else if (word == "LOADED" && rest.empty()) {
    reply.kind = ReplyKind::kLoaded;
  } else if (word == "FETCHED" && rest.empty()) {
    reply.kind = ReplyKind::kFetched;
  } else if (word == "ERROR") {
    reply.kind = ReplyKind::kError;
  } else if (word == "DONE") {
    reply.kind = ReplyKind::kDone;
    reply.text.clear();
    auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), reply.seconds);
    if (error != std::errc() || end != rest.data() + rest.size() || !(reply.seconds >= 0)) {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  return reply;
}

}  // namespace accelopt::platform::cuda
