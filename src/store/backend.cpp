#include "store/backend.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <vector>

#include "common/error.h"
#include "store/store.h"

namespace accelopt::store {

bool Row::is_null(size_t column) const {
  return std::holds_alternative<std::monostate>(values_.at(column));
}

int64_t Row::integer(size_t column) const {
  const Value& value = values_.at(column);
  if (const auto* number = std::get_if<int64_t>(&value)) return *number;
  if (const auto* number = std::get_if<double>(&value)) return static_cast<int64_t>(*number);
  if (const auto* text = std::get_if<std::string>(&value)) {
    int64_t number = 0;
    auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), number);
    if (error != std::errc() || end != text->data() + text->size()) {
      throw InternalError(fmt::format("database: column {} is not an integer: {}", column, *text));
    }
    return number;
  }
  return 0;
}

double Row::real(size_t column) const {
  const Value& value = values_.at(column);
  if (const auto* number = std::get_if<double>(&value)) return *number;
  if (const auto* number = std::get_if<int64_t>(&value)) return static_cast<double>(*number);
  if (const auto* text = std::get_if<std::string>(&value)) {
    try {
      return std::stod(*text);
    } catch (const std::exception&) {
      throw InternalError(fmt::format("database: column {} is not a number: {}", column, *text));
    }
  }
  return 0;
}

std::string Row::text(size_t column) const {
  const Value& value = values_.at(column);
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* number = std::get_if<int64_t>(&value)) return std::to_string(*number);
  if (const auto* number = std::get_if<double>(&value)) return fmt::format("{}", *number);
  return {};
}

std::optional<int64_t> Row::optional_integer(size_t column) const {
  if (is_null(column)) return std::nullopt;
  return integer(column);
}

bool is_postgres_url(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

std::string redact_url(std::string_view location) {
  std::string text(location);
  if (!is_postgres_url(text)) return text;
  // user:secret@host → user@host. The last '@' before the query ends the user part, so a secret
  // holding an unencoded '@' or '/' goes too.
  size_t authority = text.find("://") + 3;
  size_t at = text.rfind('@', text.find('?', authority));
  if (at != std::string::npos && at >= authority) {
    size_t colon = text.find(':', authority);
    if (colon < at) text.erase(colon, at - colon);
  }
  // ?password=secret&… → ?password=…&…
  for (size_t key = text.find("password=", authority); key != std::string::npos;
       key = text.find("password=", key + 1)) {
    if (text[key - 1] != '?' && text[key - 1] != '&') continue;
    size_t value = key + std::string_view("password=").size();
    size_t end = text.find('&', value);
    text.replace(value, end == std::string::npos ? std::string::npos : end - value, "…");
  }
  return text;
}

std::vector<std::pair<size_t, size_t>> password_spans(std::string_view url) {
  std::vector<std::pair<size_t, size_t>> spans;
  if (!is_postgres_url(url)) return spans;
  size_t authority = url.find("://") + 3;
  size_t query = url.find('?', authority);
  size_t at = url.rfind('@', query);
  if (at != std::string::npos && at >= authority) {
    size_t colon = url.find(':', authority);
    if (colon < at) spans.emplace_back(colon + 1, at);
  }
  for (size_t key = url.find("password=", authority); key != std::string::npos;
       key = url.find("password=", key + 1)) {
    if (url[key - 1] != '?' && url[key - 1] != '&') continue;
    size_t value = key + std::string_view("password=").size();
    size_t end = url.find('&', value);
    spans.emplace_back(value, end == std::string::npos ? url.size() : end);
  }
  return spans;
}

namespace {

// "%41" → "A"; a malformed escape is kept as it is.
std::string percent_decoded(std::string_view text) {
  std::string result;
  for (size_t index = 0; index < text.size(); ++index) {
    if (text[index] == '%' && index + 2 < text.size()) {
      int value = 0;
      auto [end, error] =
          std::from_chars(text.data() + index + 1, text.data() + index + 3, value, 16);
      if (error == std::errc() && end == text.data() + index + 3) {
        result += static_cast<char>(value);
        index += 2;
        continue;
      }
    }
    result += text[index];
  }
  return result;
}

// The passwords a URL carries, as written there: in `user:secret@` and in `?password=secret`.
std::vector<std::string> url_passwords(std::string_view url) {
  std::vector<std::string> passwords;
  for (auto [begin, end] : password_spans(url))
    passwords.emplace_back(url.substr(begin, end - begin));
  return passwords;
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

}  // namespace

std::string redact(std::string_view text, std::string_view location) {
  std::string result(text);
  if (!is_postgres_url(location)) return result;
  replace_all(result, location, redact_url(location));
  for (const std::string& password : url_passwords(location)) {
    // A password of one to three characters would blank out ordinary words; it is redacted in
    // the URL above, and secret enough for nobody.
    for (const std::string& form : {password, percent_decoded(password)}) {
      if (form.size() >= 4) replace_all(result, form, "…");
    }
  }
  return result;
}

std::string url_password(std::string_view url) {
  std::vector<std::pair<size_t, size_t>> spans = password_spans(url);
  if (spans.empty()) return {};
  return percent_decoded(url.substr(spans[0].first, spans[0].second - spans[0].first));
}

std::string without_password(std::string_view url) {
  std::string text(url);
  std::vector<std::pair<size_t, size_t>> spans = password_spans(url);
  // From the last to the first, so that earlier offsets hold.
  for (auto span = spans.rbegin(); span != spans.rend(); ++span) {
    auto [begin, end] = *span;
    if (text[begin - 1] == ':') {
      text.erase(begin - 1, end - begin + 1);  // user:secret@ → user@
      continue;
    }
    // ?password=secret&rest → ?rest; &password=secret → nothing; ?password=secret → nothing
    size_t key = begin - std::string_view("password=").size();
    bool first = text[key - 1] == '?';
    bool last = end == text.size();
    if (first && !last) {
      text.erase(key, end - key + 1);
    } else {
      text.erase(key - 1, end - key + 1);
    }
  }
  return text;
}

std::string with_connect_timeout(std::string_view url) {
  std::string result(url);
  const char* environment = std::getenv("PGCONNECT_TIMEOUT");
  if (!is_postgres_url(result) || result.find("connect_timeout=") != std::string::npos ||
      (environment != nullptr && *environment != '\0')) {
    return result;
  }
  result += result.find('?') == std::string::npos ? '?' : '&';
  return result + "connect_timeout=10";
}

std::chrono::milliseconds reconnect_window() {
  const char* text = std::getenv("ACCELOPT_DB_RETRY_SECONDS");
  if (text == nullptr || *text == '\0') return std::chrono::seconds(60);
  char* end = nullptr;
  double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || seconds < 0) {
    throw UserError(fmt::format("ACCELOPT_DB_RETRY_SECONDS={}: give a number of seconds", text));
  }
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

}  // namespace accelopt::store
