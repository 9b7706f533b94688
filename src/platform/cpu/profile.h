// What the planner is told about a compiled kernel beyond its speed: which of its loops the
// compiler vectorized (and why not, where not), and how wide its floating-point instructions are.
#pragma once

#include <filesystem>
#include <string>

#include "common/json.h"

namespace accelopt::platform::cpu {

// [{"line": 12, "vectorized": true, "detail": "loop vectorized using 64 byte vectors"}, ...] for
// the lines of kernel.cpp only, from GCC's -fopt-info or clang's -Rpass remarks.
Json vectorization_report(const std::string& remarks);

// {"fp_512": n, "fp_256": n, "fp_128": n, "fp_scalar": n, "share_512": x, ...} over the kernel's
// own functions in the library (objdump -d).
Json instruction_mix(const std::filesystem::path& library);

}  // namespace accelopt::platform::cpu
