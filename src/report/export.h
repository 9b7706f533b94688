// What `accelopt export RUN` writes. Two formats:
//   accelopt (default): best.cpp and <task>.cpp (the best kernel; `bench --kernels OUT` finds the
//     latter), kernels/<rank>_c<id>.cpp for the final beam, traces.json (every candidate with its
//     lineage and verdict) and run.json (settings, state, the best kernels).
//   flashinfer-trace: a FlashInfer Trace data set, as FlashInfer-Bench's TraceSet.from_path loads
//     it: definitions/<op_type>/<task>.json, workloads/<op_type>/<task>.jsonl (the run's workload),
//     solutions/<author>/<op_type>/<task>/<name>.json (one per candidate) and
//     traces/<author>/<op_type>/<task>.jsonl (one evaluation per evaluated candidate), plus
//     candidates.csv for a spreadsheet. docs/report.md maps the fields;
//     flashinfer_trace_check.py checks a folder against FlashInfer-Bench's rules.
#pragma once

#include <filesystem>
#include <string>

#include "report/run_view.h"

namespace accelopt::report {

enum class ExportFormat : uint8_t { kAccelopt = 0, kFlashinferTrace = 1 };

// "accelopt" or "flashinfer-trace"; UserError naming both otherwise.
ExportFormat parse_export_format(const std::string& name);

// Whether an export may write over another run's export in the same folder.
enum class ExportOverwrite : uint8_t { kRefuse = 0, kForce = 1 };

// Writes the files into `directory` (created if needed) with a marker naming the run
// (.accelopt-export.json); returns a line saying what was written. A folder that holds another
// run's export is a UserError unless `overwrite` is kForce: two runs' files would mix.
// `workspace` (the database's path or URL) names where the run lives: with the run's id, origin
// and creation time it makes FlashInfer solution names that no other workspace's run shares.
std::string export_run(const RunView& view, const std::filesystem::path& directory,
                       ExportFormat format, const std::string& workspace,
                       ExportOverwrite overwrite = ExportOverwrite::kRefuse);

}  // namespace accelopt::report
