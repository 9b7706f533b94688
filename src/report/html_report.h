// `accelopt report`: one self-contained HTML file (ECharts and the data inline, no network needed
// to open it). For runs: best % of peak and speedup against evaluations, wall time and dollars (a
// line per run), each run's lineage tree (click a candidate for its plan, verdict and diff against
// its parent), the memory entries used and written with their provenance, the cost by role and
// model, and the final table. For `accelopt bench --json` results: % of peak per task as bars, one
// per kernel (baseline, best found, library).
//
// The page checks itself: once drawn it writes what it drew and any script error into
// <div id="render-check">, so a headless browser's --dump-dom tells a test whether it rendered.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "report/run_view.h"

namespace accelopt::report {

std::string runs_html(const std::vector<RunView>& runs);

// `results`: (name, parsed JSON) of each file written by `accelopt bench --json`.
std::string bench_html(const std::vector<std::pair<std::string, Json>>& results);

// The data behind runs_html, for tests and for other tools.
Json runs_report_data(const std::vector<RunView>& runs);

// ECharts' minified source (generated from third_party/echarts by cmake/EmbedFile.cmake).
std::string_view echarts_js();

}  // namespace accelopt::report
