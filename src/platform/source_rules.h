// What a platform's kernel sources may and may not hold, as one table per platform: its checker
// reads the table to decide, and the agents' prompt lists the same rows (`machine.rules`), so what
// a model is told cannot drift from what is enforced. A row the checker never consults (an
// `allowed` construct such as `__builtin_prefetch`) says what passes because nothing forbids it;
// each such row carries an example that the platform's tests put through the real checks.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/json.h"

namespace accelopt::platform {

enum class RuleKind : uint8_t {
  kHeader,     // #include <spelling> / "spelling"
  kWord,       // an identifier anywhere in the source, string literals included
  kDirective,  // #spelling
  kPragma,     // #pragma spelling ... (the leading words)
  kAssembly,   // a directive in the compiled assembly (.spelling)
  kConstruct,  // something a kernel writes (an attribute, a builtin, a pragma) that passes
  kLimit,      // what the sandbox allows at run time (threads, memory, calls)
};

struct SourceRule {
  RuleKind kind = RuleKind::kWord;
  std::string spelling;
  bool allowed = false;
  std::string reason;
  std::string group;  // headers: "C++ standard library", "x86 intrinsics", ...
  // kConstruct: a line of kernel code that shows it; kHeader: how it is included when not as
  // <spelling> ("\"accelopt_task.h\"").
  std::string example;
};

// A header group this small is listed whole even where the prompt only summarizes the list.
inline constexpr int kShortHeaderGroup = 12;

// Allowed kHeader rows, one per name, in `group`.
void add_headers(std::vector<SourceRule>& rules, const std::string& group,
                 std::initializer_list<const char*> names);

// The kWord rows every platform refuses, since every compiler it drives would honour them: words
// that load files at compile time, run code at load time, or call the operating system directly.
void add_forbidden_words(std::vector<SourceRule>& rules);

// The identifiers of `text` in order, as C++ spells them (a letter or `_`, then letters, digits
// and `_`): how a table's rows and a kernel's directives are split into words.
std::vector<std::string> identifier_words(const std::string& text);

// The kDirective and kPragma rows every platform refuses: directives that reach other files or
// rename the one read, an #include through a macro, and pragmas that hide a file's diagnostics,
// make the compiler read another file or dump its internals. A platform adds its own after them.
void add_refused_directives_and_pragmas(std::vector<SourceRule>& rules);

// The words a forbidden-word check looks at in `code` (comments removed, literals kept: a source
// after kernel::strip_comments_and_literals, or a compiler's preprocessed output): every
// identifier as written, and again without the `__` wrapping GCC accepts around an attribute's
// name (`__constructor__`, `[[gnu::__destructor__]]`); and the identifiers of its string literals
// as the compiler reads them, adjacent literals joined and escapes decoded (`".init_arr" "ay"`,
// `"\x2einit_array"`), so that no spelling of a section name hides it.
std::vector<std::string> checked_words(const std::string& code);

// The rows of `rules` of one kind (and, when given, one `allowed`).
std::vector<const SourceRule*> rules_of(const std::vector<SourceRule>& rules, RuleKind kind);

// The `machine.rules` variables of a prompt fragment:
//   header_groups: [{group, headers: "`<algorithm>`, `<any>`, ...", count, short, last}]  the
//                  allowed headers; `short`: at most kShortHeaderGroup of them
//   refused_headers: "`<filesystem>`, `<unistd.h>`"   kHeader rows not allowed (named refusals)
//   allowed:       [{spelling, reason, example}]                         kConstruct rows
//   forbidden:     [{spelling, reason}]   kWord, kDirective, kPragma rows (written as in source)
//   assembly:      [{spelling, reason}]   kAssembly rows
//   limits:        [{spelling, reason}]   kLimit rows
Json rules_variables(const std::vector<SourceRule>& rules);

}  // namespace accelopt::platform
