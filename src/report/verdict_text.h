// A verdict as a person reads it in a terminal.
#pragma once

#include <ostream>

#include "kernel/verdict.h"

namespace accelopt::report {

void print_verdict(std::ostream& out, const kernel::Verdict& verdict, bool verbose);

}  // namespace accelopt::report
