// The one scanner of C++ source text: which characters are code, comments or literals, after the
// translation phases that change how text reads (line splices, comments, raw strings, digraphs).
//
// The harness's quick source rules, the search's duplicate detection and the agents' answer parsing
// all read kernels through it, so a spelling that fools one fools none: a backslash-newline inside
// `#incl\<newline>ude`, `%:include` for `#include`, a raw string R"x(...)x" holding a quote or a
// comment opener, a digit separator 1'000 that looks like a character literal.
//
// It is a lexer, not a preprocessor: macros are not expanded. The harness's final word on what a
// kernel includes or hands the assembler comes from the preprocessed and compiled output
// (platform/cpu/compiler.h), not from here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace accelopt::kernel {

enum class TextKind : uint8_t {
  kCode,
  kComment,
  kLiteralQuote,    // the quotes (and a raw string's delimiter and parentheses) of a literal
  kLiteralContent,  // what a string or character literal holds
};

// The kind of every character of `source`. A line splice (backslash-newline) takes the kind of the
// text it sits in.
std::vector<TextKind> classify_source(const std::string& source);

// The source with comments (and, unless `keep_literals`, the contents of string and character
// literals) blanked out, newlines and character positions kept, so that rules look only at code.
std::string strip_comments_and_literals(const std::string& source, bool keep_literals = false);

// Comments removed, line splices joined, whitespace collapsed to what separates tokens, literals
// kept as written, one line per source line that holds code (directives need their lines).
std::string normalize_source(const std::string& source);

// A preprocessing directive as the preprocessor sees it: splices joined, comments gone, `%:` read
// as
// `#`. `name` is the word after the `#` ("include", "import", "pragma", "define", a line number…).
struct Directive {
  int line = 0;  // 1-based, where the directive starts in the source
  std::string name;
  std::string rest;  // the remainder of the logical line, trimmed
};
std::vector<Directive> find_directives(const std::string& source);

// The tokens of the source outside comments, splices joined, for rules that look for a sequence of
// words (`extern "C" void kernel (`): an identifier or a number whole, a string or character
// literal whole with its quotes (`"C"`; an encoding or raw prefix is a token of its own), any other
// character that is not a blank alone. Directives' tokens are included.
std::vector<std::string> code_tokens(const std::string& source);

// Whether the loop that starts at `line` (1-based) holds x86 intrinsics (`_mm512_add_ps`,
// `__m256`, ...): hand-vectorized code, which the compiler's vectorizer reports as a loop it did
// not vectorize.
bool loop_uses_intrinsics(const std::string& source, int line);

}  // namespace accelopt::kernel
