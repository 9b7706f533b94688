// One HTTP POST over libcurl, with the limits a model call needs. Internal to the llm part: libcurl
// stays out of every header.
//
// The timeouts exist so that a server that never answers, or a stalled handshake, fails the call at
// a known time instead of holding an agent forever. There is no low-speed abort: a non-streaming
// chat completion sends nothing until the whole answer is generated, which may take minutes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "llm/client.h"

namespace accelopt::llm {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  double timeout_s = 600;  // the whole exchange
  double connect_timeout_s = 10;
  size_t max_response_bytes = 64u << 20;
};

struct HttpResponse {
  // kOk when an HTTP status arrived with its whole body; otherwise what broke: kTimeout,
  // kConnectionError, kCancelled, kConfigError (a bad URL) or kMalformedResponse (too large).
  CallStatus transport = CallStatus::kOk;
  std::string transport_error;  // libcurl's words, for messages
  bool connected = false;       // the TCP (and TLS) connection was made
  long status = 0;
  std::string body;
  std::string retry_after;     // the Retry-After header, as sent
  std::string retry_after_ms;  // OpenAI's retry-after-ms header
  std::string location;        // where a 3xx answer points (redirects are not followed)
};

HttpResponse http_post(const HttpRequest& request, const CancelToken& cancel);

// Seconds to wait from a Retry-After value: delta-seconds ("2", "1.5") or an HTTP date. Negative
// when absent or unreadable.
double parse_retry_after(const std::string& value);

}  // namespace accelopt::llm
