#include "search/normalize.h"

#include <cctype>

#include "common/hash.h"

namespace accelopt::search {

std::string normalize_source(const std::string& source) {
  std::string out;
  out.reserve(source.size());
  bool pending_space = false;
  auto emit = [&](char c) {
    if (pending_space && !out.empty()) {
      // A space matters only between two identifier characters ("int x", not "x = 1").
      char last = out.back();
      bool word_last = std::isalnum(static_cast<unsigned char>(last)) || last == '_';
      bool word_next = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      if (word_last && word_next) out += ' ';
    }
    pending_space = false;
    out += c;
  };
  size_t index = 0;
  while (index < source.size()) {
    char c = source[index];
    if (c == '/' && index + 1 < source.size() && source[index + 1] == '/') {
      while (index < source.size() && source[index] != '\n') ++index;
      pending_space = true;
      continue;
    }
    if (c == '/' && index + 1 < source.size() && source[index + 1] == '*') {
      size_t end = source.find("*/", index + 2);
      index = end == std::string::npos ? source.size() : end + 2;
      pending_space = true;
      continue;
    }
    if (c == '"' || c == '\'') {
      emit(c);
      ++index;
      while (index < source.size() && source[index] != c) {
        if (source[index] == '\\' && index + 1 < source.size()) out += source[index++];
        out += source[index++];
      }
      if (index < source.size()) out += source[index++];
      continue;
    }
    if (c == '\n' && !out.empty() && out.back() != '\n') {
      // Keep line structure for preprocessor directives.
      pending_space = false;
      out += '\n';
      ++index;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      pending_space = true;
      ++index;
      continue;
    }
    emit(c);
    ++index;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string normalized_hash(const std::string& source) {
  return sha256_hex(normalize_source(source));
}

}  // namespace accelopt::search
