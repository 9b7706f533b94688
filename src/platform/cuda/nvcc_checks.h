// What nvcc made of a CUDA kernel, checked before its library is used (issue 44), as the CPU
// compiler's stages are (cpu/compiler_checks.h): the source rules read the text as written, these
// read what the compiler read and wrote, where macros are expanded, literals joined and `_Pragma`
// turned into `#pragma`, so no spelling of the source changes what they see. nvcc runs in the
// CPU compiler's sandbox (own root showing the system and the toolkit, the kernel's folder the only
// writable one, own user and PID namespace, no network): a file it could read there is no secret,
// and these checks refuse a kernel that read one at all.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace accelopt::platform::cuda {

// `preprocessed` is one of nvcc's preprocessed translation units (the host's `*.cpp4.ii` or the
// device's `*.cpp1.ii`, kept with --keep). Every file it came from (its line markers) must be
// kernel.cu, the task header, or lie under one of `system_directories` (the toolkit's and the
// host compiler's headers); kernel.cu's own lines may hold no directive but an allowed pragma,
// and no forbidden word in any spelling. Returns why the kernel is refused.
std::optional<std::string> check_nvcc_preprocessed(
    const std::string& preprocessed, const std::vector<std::filesystem::path>& system_directories);

// `assembly` is the host compiler's assembly or the device's PTX. Directives that read files
// (.incbin, .include) or build directives (.macro, .irp, .rept, ...) are refused wherever they
// appear, in any case: nvcc's own output never holds them.
std::optional<std::string> check_nvcc_assembly(const std::string& assembly);

// nvcc's log, fit for a verdict: a diagnostic located in another file than kernel.cu or the task
// header keeps only its first line, clipped, and the lines quoted under it are dropped, so that no
// other file's text reaches a verdict or a prompt; at most `max_bytes` in all.
std::string trim_nvcc_diagnostics(const std::string& log, size_t max_bytes = 4000);

}  // namespace accelopt::platform::cuda
