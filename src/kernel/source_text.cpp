#include "kernel/source_text.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace accelopt::kernel {
namespace {

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Translation phase 2: the positions of `source` that remain once every line splice (a backslash,
// optional blanks, a newline: GCC accepts the blanks) is removed.
std::vector<size_t> logical_positions(const std::string& source) {
  std::vector<size_t> positions;
  positions.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\\') {
      size_t after = i + 1;
      while (after < source.size() &&
             (source[after] == ' ' || source[after] == '\t' || source[after] == '\r')) {
        ++after;
      }
      if (after < source.size() && source[after] == '\n') {
        i = after;
        continue;
      }
    }
    positions.push_back(i);
  }
  return positions;
}

// Scans the logical characters once, writing the kind of each into `kinds` (indexed by position in
// the source).
class Scanner {
 public:
  Scanner(const std::string& source, std::vector<TextKind>& kinds)
      : source_(source), kinds_(kinds), logical_(logical_positions(source)) {}

  void run() {
    size_t k = 0;
    while (k < logical_.size()) {
      char c = at(k);
      if (c == '/' && at(k + 1) == '/') {
        k = line_comment(k);
      } else if (c == '/' && at(k + 1) == '*') {
        k = block_comment(k);
      } else if (c == '"') {
        k = raw_prefix_before() ? raw_string(k) : quoted(k, '"');
      } else if (c == '\'' && !digit_separator(k)) {
        k = quoted(k, '\'');
      } else {
        track_token(k);
        ++k;
      }
    }
  }

 private:
  char at(size_t k) const { return k < logical_.size() ? source_[logical_[k]] : '\0'; }
  void mark(size_t k, TextKind kind) { kinds_[logical_[k]] = kind; }

  size_t line_comment(size_t k) {
    while (k < logical_.size() && at(k) != '\n') mark(k++, TextKind::kComment);
    token_kind_ = Token::kNone;
    return k;
  }

  size_t block_comment(size_t k) {
    mark(k, TextKind::kComment);
    mark(k + 1, TextKind::kComment);
    k += 2;
    while (k < logical_.size() && !(at(k) == '*' && at(k + 1) == '/')) {
      mark(k++, TextKind::kComment);
    }
    for (size_t end = k; end < k + 2 && end < logical_.size(); ++end) {
      mark(end, TextKind::kComment);
    }
    token_kind_ = Token::kNone;
    return std::min(k + 2, logical_.size());
  }

  // An ordinary string or character literal; an unescaped newline ends it (the compiler will say
  // the literal is unterminated).
  size_t quoted(size_t k, char quote) {
    mark(k++, TextKind::kLiteralQuote);
    while (k < logical_.size() && at(k) != quote && at(k) != '\n') {
      if (at(k) == '\\' && k + 1 < logical_.size()) mark(k++, TextKind::kLiteralContent);
      mark(k++, TextKind::kLiteralContent);
    }
    if (k < logical_.size() && at(k) == quote) mark(k++, TextKind::kLiteralQuote);
    token_kind_ = Token::kNone;
    return k;
  }

  // R"delim( ... )delim", with or without an encoding prefix. Inside a raw string splices are not
  // joined, so its end is looked for in the source as written.
  size_t raw_string(size_t k) {
    size_t open = logical_[k];
    size_t paren = source_.find('(', open + 1);
    std::string delimiter =
        paren == std::string::npos ? std::string() : source_.substr(open + 1, paren - open - 1);
    bool valid = paren != std::string::npos && delimiter.size() <= 16 &&
                 delimiter.find_first_of(" ()\\\t\v\f\n") == std::string::npos;
    if (!valid) return quoted(k, '"');
    std::string terminator = ")" + delimiter + "\"";
    size_t end = source_.find(terminator, paren + 1);
    size_t last = end == std::string::npos ? source_.size() : end + terminator.size();
    for (size_t i = open; i < last; ++i) {
      bool quote =
          i == open || i + 1 == last || i <= paren || (end != std::string::npos && i >= end);
      kinds_[i] = quote ? TextKind::kLiteralQuote : TextKind::kLiteralContent;
    }
    token_kind_ = Token::kNone;
    return static_cast<size_t>(std::lower_bound(logical_.begin(), logical_.end(), last) -
                               logical_.begin());
  }

  // R, LR, uR, UR or u8R as a whole identifier just before the quote.
  bool raw_prefix_before() const {
    if (token_kind_ != Token::kIdentifier) return false;
    return token_ == "R" || token_ == "LR" || token_ == "uR" || token_ == "UR" || token_ == "u8R";
  }

  // 1'000'000: a quote inside a number, between two digits or letters.
  bool digit_separator(size_t k) const {
    return token_kind_ == Token::kNumber && is_identifier_char(at(k + 1));
  }

  void track_token(size_t k) {
    char c = at(k);
    bool continues = is_identifier_char(c) || (c == '.' && token_kind_ == Token::kNumber) ||
                     (c == '\'' && token_kind_ == Token::kNumber);
    if (continues && token_kind_ != Token::kNone) {
      token_ += c;
      return;
    }
    if (is_identifier_char(c) ||
        (c == '.' && std::isdigit(static_cast<unsigned char>(at(k + 1))))) {
      bool number = std::isdigit(static_cast<unsigned char>(c)) || c == '.';
      token_kind_ = number ? Token::kNumber : Token::kIdentifier;
      token_ = c;
    } else {
      token_kind_ = Token::kNone;
      token_.clear();
    }
  }

  enum class Token { kNone, kIdentifier, kNumber };

  const std::string& source_;
  std::vector<TextKind>& kinds_;
  std::vector<size_t> logical_;
  Token token_kind_ = Token::kNone;
  std::string token_;  // the identifier or number being read
};

// Groups the logical characters of code and literals into tokens, as code_tokens describes.
class Tokenizer {
 public:
  void add(char c, TextKind kind) {
    if (kind == TextKind::kComment) return finish();
    if (kind != TextKind::kCode) return add_to_literal(c, kind);
    if (shape_ == Shape::kLiteral) finish();  // an unterminated literal ends with its line
    if (std::isspace(static_cast<unsigned char>(c))) return finish();
    if (continues_word(c)) {
      token_ += c;
      return;
    }
    finish();
    token_ = c;
    shape_ = is_identifier_char(c) ? Shape::kWord : Shape::kPunctuation;
    if (shape_ == Shape::kPunctuation) finish();
  }

  std::vector<std::string> take() {
    finish();
    return std::move(tokens_);
  }

 private:
  enum class Shape { kNone, kWord, kPunctuation, kLiteral };

  // Identifiers and numbers, with a number's decimal point and digit separators.
  bool continues_word(char c) const {
    if (shape_ != Shape::kWord) return false;
    bool number = std::isdigit(static_cast<unsigned char>(token_[0]));
    return is_identifier_char(c) || (number && (c == '.' || c == '\''));
  }

  void add_to_literal(char c, TextKind kind) {
    if (shape_ != Shape::kLiteral) {
      finish();
      shape_ = Shape::kLiteral;
      opening_quote_ = c;
      token_ = c;
      return;
    }
    token_ += c;
    if (kind == TextKind::kLiteralQuote && c == opening_quote_) finish();
  }

  void finish() {
    if (!token_.empty()) tokens_.push_back(std::move(token_));
    token_.clear();
    shape_ = Shape::kNone;
  }

  std::vector<std::string> tokens_;
  std::string token_;
  Shape shape_ = Shape::kNone;
  char opening_quote_ = 0;
};

std::string trim(const std::string& text) {
  size_t first = text.find_first_not_of(" \t\r\f\v");
  if (first == std::string::npos) return "";
  size_t last = text.find_last_not_of(" \t\r\f\v");
  return text.substr(first, last - first + 1);
}

}  // namespace

std::vector<TextKind> classify_source(const std::string& source) {
  std::vector<TextKind> kinds(source.size(), TextKind::kCode);
  Scanner(source, kinds).run();
  // A splice takes the kind of the text it continues.
  std::vector<size_t> logical = logical_positions(source);
  size_t next_logical = 0;
  for (size_t i = 0; i < source.size(); ++i) {
    while (next_logical < logical.size() && logical[next_logical] < i) ++next_logical;
    bool in_splice = next_logical >= logical.size() || logical[next_logical] != i;
    if (in_splice && i > 0) kinds[i] = kinds[i - 1];
  }
  return kinds;
}

std::string strip_comments_and_literals(const std::string& source, bool keep_literals) {
  std::vector<TextKind> kinds = classify_source(source);
  std::string out = source;
  for (size_t i = 0; i < out.size(); ++i) {
    bool blank =
        kinds[i] == TextKind::kComment || (kinds[i] == TextKind::kLiteralContent && !keep_literals);
    if (blank && out[i] != '\n') out[i] = ' ';
  }
  return out;
}

std::string normalize_source(const std::string& source) {
  std::vector<TextKind> kinds = classify_source(source);
  std::string out;
  out.reserve(source.size());
  bool pending_space = false;
  for (size_t i : logical_positions(source)) {
    char c = source[i];
    TextKind kind = kinds[i];
    if (kind == TextKind::kComment) {
      pending_space = true;
      continue;
    }
    bool literal = kind != TextKind::kCode;
    if (!literal && c == '\n') {
      if (!out.empty() && out.back() != '\n') out += '\n';
      pending_space = false;
      continue;
    }
    if (!literal && std::isspace(static_cast<unsigned char>(c))) {
      pending_space = true;
      continue;
    }
    // A space matters only between two identifier characters ("int x", not "x = 1").
    if (pending_space && !out.empty() && is_identifier_char(out.back()) && is_identifier_char(c)) {
      out += ' ';
    }
    pending_space = false;
    out += c;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::vector<Directive> find_directives(const std::string& source) {
  std::vector<TextKind> kinds = classify_source(source);
  std::vector<Directive> directives;
  std::string line;
  int line_number = 1, line_start = 1;
  size_t previous = 0;
  auto finish_line = [&]() {
    std::string text = trim(line);
    size_t after = std::string::npos;
    if (text.starts_with("#")) after = 1;
    if (text.starts_with("%:")) after = 2;
    if (after != std::string::npos) {
      text = trim(text.substr(after));
      size_t name_end = 0;
      while (name_end < text.size() && is_identifier_char(text[name_end])) ++name_end;
      directives.push_back({line_start, text.substr(0, name_end), trim(text.substr(name_end))});
    }
    line.clear();
  };
  for (size_t i : logical_positions(source)) {
    line_number += static_cast<int>(std::count(source.begin() + static_cast<long>(previous),
                                               source.begin() + static_cast<long>(i), '\n'));
    previous = i;
    char c = source[i];
    if (kinds[i] == TextKind::kComment) {
      if (line.empty() || line.back() != ' ') line += ' ';
      continue;
    }
    if (kinds[i] == TextKind::kCode && c == '\n') {
      finish_line();
      line_start = line_number + 1;
      continue;
    }
    line += c;
  }
  finish_line();
  return directives;
}

std::vector<std::string> code_tokens(const std::string& source) {
  std::vector<TextKind> kinds = classify_source(source);
  Tokenizer tokenizer;
  for (size_t i : logical_positions(source)) tokenizer.add(source[i], kinds[i]);
  return tokenizer.take();
}

bool loop_uses_intrinsics(const std::string& source, int line) {
  if (line <= 0) return false;
  size_t start = 0;
  for (int i = 1; i < line && start != std::string::npos; ++i) {
    start = source.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos) return false;
  // The loop's body: past the parenthesis that opens on its line, to the matching brace, or its
  // one statement.
  size_t i = source.find('(', start);
  size_t line_end = source.find('\n', start);
  if (i == std::string::npos || (line_end != std::string::npos && i > line_end)) {
    i = start;  // no parenthesis on the line: its body follows
  } else {
    for (int depth = 0; i < source.size(); ++i) {
      if (source[i] == '(') ++depth;
      if (source[i] == ')' && --depth <= 0) break;
    }
    ++i;
  }
  size_t end = source.size();
  i = source.find_first_not_of(" \t\r\n", i);
  if (i != std::string::npos && source[i] == '{') {
    for (int depth = 0; i < source.size(); ++i) {
      if (source[i] == '{') ++depth;
      if (source[i] == '}' && --depth == 0) {
        end = i;
        break;
      }
    }
  } else if (i != std::string::npos) {
    end = std::min(source.size(), source.find(';', i));
  }
  static const std::regex intrinsic(R"(\b(_mm(256|512)?_\w+|__m(128|256|512)[id]?)\b)");
  return std::regex_search(source.begin() + static_cast<std::ptrdiff_t>(start),
                           source.begin() + static_cast<std::ptrdiff_t>(end), intrinsic);
}

}  // namespace accelopt::kernel
