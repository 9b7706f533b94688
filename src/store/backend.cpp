#include "store/backend.h"

#include <fmt/format.h>

#include <charconv>

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

}  // namespace accelopt::store
