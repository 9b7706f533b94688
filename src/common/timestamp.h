// Wall-clock time as the records of the database and the ledgers write it.
#pragma once

#include <string>

namespace accelopt {

// Now, in UTC, as "2025-01-31T12:00:00.123Z".
std::string utc_timestamp();

}  // namespace accelopt
