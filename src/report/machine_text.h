// A platform's description of its machine, as `accelopt machine` prints it: one fact a line.
#pragma once

#include <ostream>

#include "platform/machine_description.h"

namespace accelopt::report {

void print_machine(std::ostream& out, const platform::MachineDescription& description);

}  // namespace accelopt::report
