#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "common/utf8.h"

namespace accelopt {

// How a value becomes JSON and back: nlohmann's way, except for the two kinds of value that JSON
// cannot hold and that our records do hold.
//  - NaN and ±inf (a kernel whose outputs overflowed, a speedup over nothing): written as the
//    strings "NaN", "Infinity" and "-Infinity", so they round-trip exactly; read back from those
//    strings, and from null, which is what older databases hold for any of them.
//  - Text that is not UTF-8 (a Latin-1 comment in a kernel, a compiler log quoting it, a model's
//    answer): escaped losslessly by escape_to_utf8 (common/utf8.h, which says why it leaves valid
//    UTF-8 alone) on the way in and unescaped by get<std::string>() and value() on the way out;
//    nlohmann's error_handler_t::replace would lose the bytes.
// Every figure and every text that goes through Json passes here, so no reader needs to know.
template <typename T, typename = void>
struct JsonSerializer : nlohmann::adl_serializer<T> {};

template <typename Float>
struct JsonSerializer<Float, std::enable_if_t<std::is_floating_point_v<Float>>> {
  template <typename BasicJson>
  static void to_json(BasicJson& json, Float value) {
    if (std::isfinite(value)) {
      nlohmann::to_json(json, value);
    } else {
      nlohmann::to_json(json, std::string(std::isnan(value) ? "NaN"
                                          : value > 0       ? "Infinity"
                                                            : "-Infinity"));
    }
  }

  template <typename BasicJson>
  static void from_json(const BasicJson& json, Float& value) {
    if (json.is_null()) {
      value = std::numeric_limits<Float>::quiet_NaN();
      return;
    }
    if (json.is_string()) {
      const auto& text = json.template get_ref<const std::string&>();
      if (text == "NaN") return void(value = std::numeric_limits<Float>::quiet_NaN());
      if (text == "Infinity") return void(value = std::numeric_limits<Float>::infinity());
      if (text == "-Infinity") return void(value = -std::numeric_limits<Float>::infinity());
    }
    nlohmann::from_json(json, value);  // a number, or nlohmann's type error
  }
};

// Everything a string is written from: std::string, std::string_view, const char*, char arrays.
template <typename Text>
inline constexpr bool kIsText =
    std::is_same_v<Text, std::string> || std::is_same_v<Text, std::string_view> ||
    std::is_same_v<Text, const char*> || std::is_same_v<Text, char*> ||
    (std::is_array_v<Text> && std::is_same_v<std::remove_extent_t<Text>, char>) ||
    (std::is_array_v<Text> && std::is_same_v<std::remove_extent_t<Text>, const char>);

template <typename Text>
struct JsonSerializer<Text, std::enable_if_t<kIsText<Text>>> {
  template <typename BasicJson>
  static void to_json(BasicJson& json, std::string_view text) {
    nlohmann::to_json(json, escape_to_utf8(text));
  }

  template <typename BasicJson, typename Target = Text>
  static auto from_json(const BasicJson& json, Target& text)
      -> std::enable_if_t<std::is_same_v<Target, std::string>> {
    if (!json.is_string()) return nlohmann::from_json(json, text);  // nlohmann's type error
    text = unescape_utf8(json.template get_ref<const std::string&>());
  }
};

// Keeps keys in the order they were written, so definitions and records read as their authors wrote
// them, and inputs keep their definition order.
using Json =
    nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t,
                         std::uint64_t, double, std::allocator, JsonSerializer>;

}  // namespace accelopt
