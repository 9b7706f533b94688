// A verdict as a person reads it in a terminal.
#pragma once

#include <ostream>

#include "platform/verdict.h"

namespace accelopt::report {

void print_verdict(std::ostream& out, const platform::Verdict& verdict, bool verbose);

}  // namespace accelopt::report
