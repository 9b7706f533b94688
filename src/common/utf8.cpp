#include "common/utf8.h"

namespace accelopt {
namespace {

// U+10FF80..U+10FFFF in UTF-8: F4 8F BE 80..BF and F4 8F BF 80..BF; the low byte of the code
// point is the escaped byte.
constexpr std::string_view kEscapePrefix = "\xF4\x8F";

bool is_continuation(unsigned char byte) {
  return (byte & 0xC0) == 0x80;
}

// The length of the valid UTF-8 character at the start of `bytes`; 0 when there is none.
size_t valid_character_length(std::string_view bytes) {
  auto at = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  unsigned char lead = at(0);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (bytes.size() < length || at(1) < low || at(1) > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (!is_continuation(at(i))) return 0;
  }
  return length;
}

bool is_escape(std::string_view character) {
  return character.size() == 4 && character.substr(0, 2) == kEscapePrefix &&
         (static_cast<unsigned char>(character[2]) & 0xFE) == 0xBE &&
         is_continuation(static_cast<unsigned char>(character[3]));
}

void append_escaped_byte(std::string& out, unsigned char byte) {
  out += kEscapePrefix;
  out += static_cast<char>(0xBC | (byte >> 6));  // 0xBE for 0x80..0xBF, 0xBF for 0xC0..0xFF
  out += static_cast<char>(0x80 | (byte & 0x3F));
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    size_t length = valid_character_length(bytes.substr(i));
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string escape_to_utf8(std::string_view bytes) {
  if (is_valid_utf8(bytes)) return std::string(bytes);
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 4);
  for (size_t i = 0; i < bytes.size();) {
    size_t length = valid_character_length(bytes.substr(i));
    if (length == 0 || is_escape(bytes.substr(i, length))) {
      size_t count = length == 0 ? 1 : length;
      for (size_t k = 0; k < count; ++k) {
        append_escaped_byte(out, static_cast<unsigned char>(bytes[i + k]));
      }
      i += count;
    } else {
      out.append(bytes.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string unescape_utf8(std::string_view text) {
  if (text.find(kEscapePrefix) == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    std::string_view rest = text.substr(i, 4);
    if (is_escape(rest)) {
      auto high = static_cast<unsigned char>(rest[2]) & 0x01;
      auto low = static_cast<unsigned char>(rest[3]) & 0x3F;
      out += static_cast<char>(0x80 | (high << 6) | low);
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace accelopt
