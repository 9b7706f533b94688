// The rules a CUDA kernel source must follow before it is compiled: it includes only the standard
// library, the CUDA headers a kernel needs and "accelopt_task.h", and defines the entry point.
// They read the source through the project's one scanner (kernel/source_text.h), as the CPU rules
// do, so `#incl\<newline>ude`, `%:include` and an entry point inside a comment are seen for what
// they are. The sandbox (cuda_runner_main.cpp) stops the rest; these rules give an agent a plain
// reason early.
#pragma once

#include <optional>
#include <string>

namespace accelopt::platform::cuda {

// Why the source is rejected, or nullopt.
std::optional<std::string> check_cuda_source(const std::string& source,
                                             const std::string& entry_point);

// Whether `name` (as written between <> or "") is a header a CUDA kernel may include.
bool is_allowed_header(const std::string& name);

}  // namespace accelopt::platform::cuda
