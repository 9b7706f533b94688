// `accelopt report`: one self-contained HTML file (ECharts and the data inline, no network needed
// to open it). For runs: best % of peak and speedup against evaluations, wall time and dollars (a
// line per run), each run's candidates (every one by speedup in the order evaluated, and the
// passing ones on the roofline of the measured ceilings), each run's lineage tree (click a
// candidate for its plan, verdict and diff against its parent), the memory entries used and written
// with their provenance, the cost by role and model, and the final table. For `accelopt bench
// --json` results: % of peak per task as bars, one per kernel (baseline, best found, library).
//
// The page checks itself: once drawn it writes what it drew and any script error into
// <div id="render-check">, so a headless browser's --dump-dom tells a test whether it rendered,
// and whether at that window's width any chart's title is cut or legend paged.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "report/run_view.h"

namespace accelopt::report {

std::string runs_html(const std::vector<RunView>& runs);

// `results`: (name, parsed JSON) of each file written by `accelopt bench --json`.
std::string bench_html(const std::vector<std::pair<std::string, Json>>& results);

// The data behind runs_html, for tests and for other tools.
Json runs_report_data(const std::vector<RunView>& runs);

// The page around `data` (JSON in <script id="report-data">) and `script`, which draws it: the
// report's style, ECharts inline, the header and <div id="render-check"> (report/study_report.cpp).
std::string html_page(const std::string& title, const std::string& subtitle, const Json& data,
                      std::string_view script);

// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS[.mmm][Z]" (or a space for the T), as the
// database writes its times; nullopt for another text.
std::optional<double> parse_utc(const std::string& text);

// ECharts' minified source (generated from third_party/echarts by cmake/EmbedFile.cmake).
std::string_view echarts_js();

}  // namespace accelopt::report
