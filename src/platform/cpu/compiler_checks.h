// What the compiler made of a kernel, checked between its stages: the preprocessed translation unit
// before it is compiled, the assembly before it is assembled. These look at the compiler's own
// output, where macros are expanded, splices joined, digraphs and _Pragma turned into plain
// directives, so no spelling of the source changes what they see (compiler.h runs them).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace accelopt::platform::cpu {

// `preprocessed` is `-E` output of kernel.cpp. Every file it came from (its line markers) must be
// kernel.cpp, the task header, or a header under one of `include_directories` (the compiler's
// system search list); what kernel.cpp includes directly must be an allowed header
// (source_check.h); no directive may survive but line markers and harmless pragmas. Returns why
// the kernel is refused.
std::optional<std::string> check_preprocessed(
    const std::string& preprocessed, const std::vector<std::filesystem::path>& include_directories);

// `assembly` is `-S` output. Directives that read files (.incbin, .include) are refused wherever
// they appear, in any case, with the machinery that could build them (macros, repetitions); every
// other directive must be one that compilers emit.
std::optional<std::string> check_assembly(const std::string& assembly);

// The compiler's log, kept to what a person or a model needs: the first `max_errors` errors with
// their context. A diagnostic located in another file than the kernel's own (kernel.cpp or the task
// header) keeps only its first line, so that no other file's text is ever quoted.
std::string trim_diagnostics(const std::string& log, int max_errors = 5, size_t max_bytes = 4000);

}  // namespace accelopt::platform::cpu
