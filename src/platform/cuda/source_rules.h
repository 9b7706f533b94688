// The rules a CUDA kernel source must follow before it is compiled: it includes only the standard
// library, the CUDA headers a kernel needs and "accelopt_task.h", holds none of the words that
// load files or run code at load time, and defines the entry point.
// They read the source through the project's one scanner (kernel/source_text.h), as the CPU rules
// do, so `#incl\<newline>ude`, `%:include` and an entry point inside a comment are seen for what
// they are. The sandbox (cuda_runner_main.cpp) stops the rest; these rules give an agent a plain
// reason early.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/source_rules.h"

namespace accelopt::platform::cuda {

// Why the source is rejected, or nullopt.
std::optional<std::string> check_cuda_source(const std::string& source,
                                             const std::string& entry_point);

// Whether `name` (as written between <> or "") is a header a CUDA kernel may include; the task
// header only between quotes.
bool is_allowed_header(const std::string& name);

// The forbidden kPragma row `pragma` (the words after #pragma) starts with, if any; and whether it
// starts with an allowed one: a kernel's pragmas pass by allow-list (issue 44).
const SourceRule* forbidden_pragma(const std::string& pragma);
bool allowed_pragma(const std::string& pragma);

// Why `code` (comments removed, literals kept; or nvcc's preprocessed kernel lines) is refused for
// a forbidden word in any spelling the compiler reads as it (checked_words), if it is.
std::optional<std::string> forbidden_word_in(const std::string& code);

// The rules as one table (platform/source_rules.h): headers, forbidden words, directives and
// pragmas that check_cuda_source reads, the constructs that pass, and the sandbox's limits; the
// agents' prompt (prompts/platform/cuda.mustache, `machine.rules`) lists the same rows.
const std::vector<SourceRule>& kernel_rules();

}  // namespace accelopt::platform::cuda
