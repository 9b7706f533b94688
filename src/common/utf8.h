// Text from outside (kernel sources, compiler logs, kernel output, model answers) is bytes, not
// always UTF-8; JSON and PostgreSQL's TEXT accept only UTF-8. The lossless scheme that carries such
// bytes through them: text that is valid UTF-8 is left as it is, byte for byte; in text that is
// not, each byte that is not part of a valid character becomes the private-use character
// U+10FF80..U+10FFFF whose low byte it is, and a character that already lies in that block has
// its four bytes escaped likewise, so unescaping (every U+10FF80..U+10FFFF back to its byte) is
// exact. Valid text is never changed, because nlohmann's parser passes every string it reads back
// through Json's serializer (common/json.h): escaping must be the identity on its own output. The
// one text that does not round-trip is valid UTF-8 that itself holds characters of the last 128
// code points of Plane 16's private-use area, which no compiler, kernel or model writes.
#pragma once

#include <string>
#include <string_view>

namespace accelopt {

bool is_valid_utf8(std::string_view bytes);

// `bytes` itself when valid UTF-8; otherwise the escaped, valid UTF-8 that unescape_utf8 turns
// back into `bytes`.
std::string escape_to_utf8(std::string_view bytes);

// The bytes escape_to_utf8 was given; anything that is not an escape passes through unchanged.
std::string unescape_utf8(std::string_view text);

}  // namespace accelopt
