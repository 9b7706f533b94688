// What the planner is told about a compiled kernel beyond its speed: which of its loops the
// compiler vectorized (and why not, where not), and how wide its floating-point instructions are.
#pragma once

#include <filesystem>
#include <string>

#include "common/json.h"

namespace accelopt::platform::cpu {

// [{"line": 12, "vectorized": true, "intrinsics": false, "detail": "loop vectorized using 64 byte
// vectors"}, ...] for the lines of kernel.cpp only, from GCC's -fopt-info or clang's -Rpass
// remarks; `intrinsics`: a loop the compiler did not vectorize whose body in `source` holds x86
// intrinsics (vectorized by hand).
Json vectorization_report(const std::string& remarks, const std::string& source);

// {"fp_512": n, "fp_256": n, "fp_128": n, "fp_scalar": n, "share_512": x, ...} over the kernel's
// own functions in the library (objdump -d).
Json instruction_mix(const std::filesystem::path& library);

}  // namespace accelopt::platform::cpu
