// Identical kernels are evaluated once: two sources are the same kernel when they are equal after
// removing comments, joining line splices and collapsing whitespace (string literals are kept as
// they are). The scanning is kernel/source_text.h's, the one C++ scanner of the project.
#pragma once

#include <string>

namespace accelopt::search {

std::string normalize_source(const std::string& source);
std::string normalized_hash(const std::string& source);  // sha256 of normalize_source

}  // namespace accelopt::search
