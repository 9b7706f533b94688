// The CPU sandbox's rules as one table (platform/source_rules.h): the source check
// (source_check.h) and the checks of the compiler's output (compiler_checks.h) read their headers,
// words, directives, pragmas and assembly directives from it, and the agents' prompt
// (prompts/platform/cpu.mustache, `machine.rules`) lists the same rows.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "platform/source_rules.h"

namespace accelopt::platform::cpu {

inline constexpr size_t kMaxSourceBytes = 512 * 1024;

const std::vector<SourceRule>& kernel_rules();

// Whether `name` (as written between <>) is an allowed header of the table; the task header is
// allowed only between quotes, and is not one of these.
bool is_table_header(const std::string& name);
// The kWord row `word` is, or null.
const SourceRule* forbidden_word(const std::string& word);
// The kDirective row for `#name`, or null. Line markers (`# 12 "file"`) are the row "<number>".
const SourceRule* forbidden_directive(const std::string& name);
// The kPragma row that `words` (what follows `#pragma`) starts with, word for word, or null.
const SourceRule* forbidden_pragma(const std::string& words);
// Whether `words` (what follows `#pragma`) start with a pragma a kernel may write: the allow-list
// the kConstruct row for pragmas names. Pragmas in system headers are not held to it.
bool allowed_pragma(const std::string& words);
// "incbin|include|macro|...": the kAssembly rows' names, for a pattern.
std::string assembly_alternatives();

}  // namespace accelopt::platform::cpu
