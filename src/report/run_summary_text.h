// What `accelopt optimize` and `resume` print when their runs end: the search's own summary of
// each run (search::RunSummary), as it finished, without reading the database back.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "search/beam_search.h"

namespace accelopt::report {

// One run: baseline and best, speedup and % of peak, how it ended and what to type next.
// `workspace_option` ("--workspace DIR", or empty for the default workspace) goes into the
// commands it suggests, so that they work as printed.
void print_run_summary(std::ostream& out, const search::RunSummary& summary,
                       std::string_view workspace_option = {});

// One run per task: a row each, % of peak before and after, and the geometric means.
void print_run_summaries(std::ostream& out,
                         const std::vector<std::pair<std::string, search::RunSummary>>& summaries);

}  // namespace accelopt::report
