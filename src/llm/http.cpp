#include "llm/http.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <memory>

#include "common/error.h"

namespace accelopt::llm {
namespace {

void ensure_curl_initialized() {
  static const bool initialized = [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw InternalError("curl_global_init failed");
    }
    return true;
  }();
  (void)initialized;
}

struct Transfer {
  HttpResponse* response;
  const CancelToken* cancel;
  size_t max_bytes;
  bool too_large = false;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  size_t bytes = size * count;
  if (transfer->response->body.size() + bytes > transfer->max_bytes) {
    transfer->too_large = true;
    return 0;
  }
  transfer->response->body.append(data, bytes);
  return bytes;
}

std::string trim(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  size_t bytes = size * count;
  std::string_view line(data, bytes);
  if (line.starts_with("HTTP/")) {  // a new response (after 100 Continue or a redirect)
    transfer->response->retry_after.clear();
    transfer->response->retry_after_ms.clear();
    transfer->response->location.clear();
    return bytes;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return bytes;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name == "retry-after") transfer->response->retry_after = trim(line.substr(colon + 1));
  if (name == "retry-after-ms") transfer->response->retry_after_ms = trim(line.substr(colon + 1));
  if (name == "location") transfer->response->location = trim(line.substr(colon + 1));
  return bytes;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* transfer = static_cast<Transfer*>(user);
  return transfer->cancel->cancelled() ? 1 : 0;
}

struct CurlDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

}  // namespace

HttpResponse http_post(const HttpRequest& request, const CancelToken& cancel) {
  ensure_curl_initialized();
  std::unique_ptr<CURL, CurlDeleter> handle(curl_easy_init());
  if (!handle) throw InternalError("curl_easy_init failed");
  CURL* curl = handle.get();

  HttpResponse response;
  Transfer transfer{&response, &cancel, request.max_response_bytes};
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  for (const auto& header : request.headers) {
    curl_slist* appended = curl_slist_append(headers.get(), header.c_str());
    if (appended == nullptr) throw InternalError("curl_slist_append failed");
    headers.release();
    headers.reset(appended);
  }
  // Some servers mishandle "Expect: 100-continue", which curl sends for large bodies.
  headers.reset(curl_slist_append(headers.release(), "Expect:"));
  char error_buffer[CURL_ERROR_SIZE] = {};

  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(request.connect_timeout_s * 1000));
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);

  CURLcode code = curl_easy_perform(curl);
  curl_off_t connect_time = 0;
  curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_time);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  response.connected = connect_time > 0 || response.status != 0;
  if (code == CURLE_OK) return response;

  response.transport_error = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
  switch (code) {
    case CURLE_ABORTED_BY_CALLBACK:
      response.transport = CallStatus::kCancelled;
      break;
    case CURLE_OPERATION_TIMEDOUT:
      response.transport = response.connected ? CallStatus::kTimeout : CallStatus::kConnectionError;
      break;
    case CURLE_WRITE_ERROR:
      response.transport =
          transfer.too_large ? CallStatus::kMalformedResponse : CallStatus::kConnectionError;
      if (transfer.too_large) {
        response.transport_error =
            fmt::format("answer larger than {} bytes", request.max_response_bytes);
      }
      break;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      response.transport = CallStatus::kConfigError;
      break;
    default:
      response.transport = CallStatus::kConnectionError;
      break;
  }
  return response;
}

double parse_retry_after(const std::string& value) {
  std::string text = trim(value);
  if (text.empty()) return -1;
  char* end = nullptr;
  double seconds = std::strtod(text.c_str(), &end);
  if (end != nullptr && *end == '\0') return seconds >= 0 ? seconds : -1;
  time_t when = curl_getdate(text.c_str(), nullptr);
  if (when < 0) return -1;
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return std::max<double>(0, static_cast<double>(when - now));
}

}  // namespace accelopt::llm
