// Rules a kernel source must keep before it reaches the compiler: the quick, friendly first look.
// What a source may pull in is an allow-list (the C and C++ standard library, the x86 intrinsics,
// omp.h and the generated task header), read here from the text in every spelling the lexer allows.
//
// This is not the boundary: macros can build any spelling. The compiler runs in a sandbox that
// sees only the system headers, and its preprocessed output and assembly are checked again
// (compiler.h), whatever the source looked like.
#pragma once

#include <optional>
#include <string>

#include "kernel/source_text.h"

namespace accelopt::platform::cpu {

// The reason the source is rejected, or nullopt when it may be compiled.
std::optional<std::string> check_kernel_source(const std::string& source,
                                               const std::string& entry_point);

// Why `code` (comments removed, literals kept; or preprocessed) is refused for a forbidden word in
// any spelling the compiler reads as it (platform/source_rules.h's checked_words), if it is.
std::optional<std::string> forbidden_word_in(const std::string& code);

// Whether `name` (as written between <> or "") is a header a kernel may include.
bool is_allowed_header(const std::string& name);

using kernel::strip_comments_and_literals;

}  // namespace accelopt::platform::cpu
