#pragma once

#include <nlohmann/json.hpp>

namespace accelopt {

// Keeps keys in the order they were written, so definitions and records read as their authors wrote
// them, and inputs keep their definition order.
using Json = nlohmann::ordered_json;

}  // namespace accelopt
