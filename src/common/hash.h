#pragma once

#include <string>
#include <string_view>

namespace accelopt {

// Lower-case hex SHA-256 of `data`: the key of every content-addressed cache and record.
std::string sha256_hex(std::string_view data);

}  // namespace accelopt
