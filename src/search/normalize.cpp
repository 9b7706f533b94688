#include "search/normalize.h"

#include "common/hash.h"
#include "kernel/source_text.h"

namespace accelopt::search {

std::string normalize_source(const std::string& source) {
  return kernel::normalize_source(source);
}

std::string normalized_hash(const std::string& source) {
  return sha256_hex(normalize_source(source));
}

}  // namespace accelopt::search
