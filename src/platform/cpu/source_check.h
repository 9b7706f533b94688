// Rules a kernel source must keep before it reaches the compiler. The compiler is trusted code but
// a source can still turn it against the machine (#include "/etc/shadow", .incbin), so what a
// source may pull in is an allow-list: the C and C++ standard library, the x86 intrinsics, omp.h
// and the generated task header.
#pragma once

#include <optional>
#include <string>

namespace accelopt::platform::cpu {

// The reason the source is rejected, or nullopt when it may be compiled.
std::optional<std::string> check_kernel_source(const std::string& source,
                                               const std::string& entry_point);

// The source with comments (and, unless `keep_literals`, the contents of string and character
// literals) blanked out, line structure kept, so that rules look only at code.
std::string strip_comments_and_literals(const std::string& source, bool keep_literals = false);

}  // namespace accelopt::platform::cpu
