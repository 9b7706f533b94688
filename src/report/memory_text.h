// What `accelopt memory list` prints: one line per memory entry, with where it came from.
#pragma once

#include <ostream>
#include <vector>

#include "store/store.h"

namespace accelopt::report {

// "#12    silu           run 3   + 1.42x  Vectorize the loop…" per entry; "the memory is empty"
// when there are none.
void print_memory_entries(std::ostream& out, const std::vector<store::MemoryEntryRecord>& entries);

}  // namespace accelopt::report
