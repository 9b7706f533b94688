#include "report/export.h"

#include <fmt/format.h>

#include <fstream>
#include <optional>

#include "common/error.h"
#include "common/files.h"

namespace accelopt::report {

ExportFormat parse_export_format(const std::string& name) {
  if (name == "accelopt") return ExportFormat::kAccelopt;
  if (name == "flashinfer-trace") return ExportFormat::kFlashinferTrace;
  throw UserError(fmt::format("--format: '{}' is not one of accelopt, flashinfer-trace", name));
}

namespace {

void make_directory(const std::filesystem::path& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) throw UserError(fmt::format("creating {}: {}", directory.string(), error.message()));
}

// The run's figures of a candidate (one % of peak per run); null for one that was not timed.
Json figures_json(const search::Figures& figures) {
  if (figures.speedup <= 0) return nullptr;
  return Json{{"speedup", figures.speedup},
              {"speedup_low", figures.speedup_low},
              {"speedup_high", figures.speedup_high},
              {"latency_ms", figures.latency_seconds * 1e3},
              {"percent_of_peak", figures.percent_of_peak}};
}

Json trace_json(const RunView& view, const store::CandidateRecord& candidate) {
  const store::TraceRecord* trace = nullptr;
  if (auto found = view.traces.find(candidate.id); found != view.traces.end())
    trace = &found->second;
  return Json{
      {"candidate", candidate.id},
      {"key", candidate.key},
      {"parent", candidate.parent ? Json(*candidate.parent) : Json(nullptr)},
      {"iteration", candidate.iteration},
      {"kind", store::kind_name(candidate.kind)},
      {"author", candidate.author},
      {"plan", candidate.plan},
      {"source_hash", candidate.source_hash},
      {"reused_from", trace && trace->reused_from ? Json(*trace->reused_from) : Json(nullptr)},
      {"figures", figures_json(view.figures(candidate.id))},
      {"verdict", trace ? trace->verdict.to_json() : Json(nullptr)}};
}

std::string export_accelopt(const RunView& view, const std::filesystem::path& directory) {
  make_directory(directory / "kernels");
  int rank = 0;
  Json best = Json::array();
  // best.cpp is the confirmed winner when the run ended with a confirmation.
  auto winner = view.best();
  for (const auto& kernel : view.final_beam) {
    const store::CandidateRecord* candidate = view.candidate(kernel.candidate);
    if (candidate == nullptr) continue;
    std::string name = fmt::format("{}_c{}.cpp", ++rank, candidate->id);
    write_file_atomic(directory / "kernels" / name, candidate->source);
    if (winner && winner->candidate == candidate->id) {
      write_file_atomic(directory / "best.cpp", candidate->source);
      write_file_atomic(directory / (view.task() + ".cpp"), candidate->source);
    }
    best.push_back(Json{{"file", "kernels/" + name},
                        {"candidate", candidate->id},
                        {"figures", figures_json(view.figures(candidate->id))},
                        {"verdict", kernel.verdict.to_json()}});
  }
  Json traces = Json::array();
  for (const auto& candidate : view.candidates) traces.push_back(trace_json(view, candidate));
  write_file_atomic(directory / "traces.json", traces.dump(2) + "\n");
  Json run{
      {"run", view.run.id}, {"state", view.run.state}, {"config", view.run.config}, {"best", best}};
  write_file_atomic(directory / "run.json", run.dump(2) + "\n");
  std::string line = fmt::format("exported run {}: {} kernels, {} traces to {}", view.run.id,
                                 best.size(), traces.size(), directory.string());
  if (!best.empty()) {
    line +=
        fmt::format("\nthe best kernel is {}: `accelopt bench --kernels {} --tasks {}` times it",
                    (directory / (view.task() + ".cpp")).string(), directory.string(), view.task());
  }
  return line;
}

// FlashInfer Trace's evaluation statuses are ours, less the two REJECTED_ ones: a source that
// breaks a rule never built, and a kernel faster than physics computed something else.
std::string flashinfer_status(kernel::Status status) {
  switch (status) {
    case kernel::Status::kRejectedSource:
      return "COMPILE_ERROR";
    case kernel::Status::kRejectedPhysics:
      return "INCORRECT_NUMERICAL";
    default:
      return std::string(kernel::status_name(status));
  }
}

Json definition_record(const RunView& view) {
  std::filesystem::path file =
      std::filesystem::path(view.settings.task_directory) / "definition.json";
  try {
    Json definition = Json::parse(read_file(file));
    definition["name"] = view.task();
    return definition;
  } catch (const std::exception&) {
    return Json{{"name", view.task()}, {"description", "definition.json not found at export"}};
  }
}

std::string solution_name(const RunView& view, const store::CandidateRecord& candidate) {
  return fmt::format("{}_run{}_c{}", view.task(), view.run.id, candidate.id);
}

Json solution_record(const RunView& view, const store::CandidateRecord& candidate,
                     const std::string& entry_point) {
  return Json{{"name", solution_name(view, candidate)},
              {"definition", view.task()},
              {"description", candidate.plan.value("text", "")},
              {"author", candidate.author},
              {"spec",
               {{"language", "C++"},
                {"target_hardware", Json::array({"CPU"})},
                {"dependencies", Json::array()},
                {"entry_point", "kernel.cpp::" + entry_point},
                {"build_commands", Json::array()}}},
              {"sources", Json::array({{{"path", "kernel.cpp"}, {"content", candidate.source}}})}};
}

Json trace_record(const RunView& view, const store::CandidateRecord& candidate,
                  const Json& definition, double baseline_ms) {
  const kernel::Verdict* verdict = view.verdict(candidate.id);
  const std::string& workload = view.settings.workload;
  Json axes = Json::object();
  if (definition.contains("workloads") && definition["workloads"].contains(workload))
    axes = definition["workloads"][workload].value("axes", Json::object());
  Json inputs = Json::object();
  if (definition.contains("inputs")) {
    for (const auto& [name, input] : definition["inputs"].items())
      inputs[name] = {{"type", "random"}};
  }
  Json evaluation = nullptr;
  if (verdict != nullptr) {
    // The run's figures (one % of peak per run), as every table shows them.
    search::Figures figures = view.figures(candidate.id);
    double latency_ms = figures.latency_seconds * 1e3;
    evaluation = Json{{"status", flashinfer_status(verdict->status)},
                      {"log_file", ""},
                      {"correctness",
                       {{"max_relative_error", verdict->correctness.max_rel_error},
                        {"max_absolute_error", verdict->correctness.max_abs_error}}},
                      {"performance",
                       {{"latency_ms", latency_ms},
                        {"reference_latency_ms", baseline_ms},
                        {"speedup_factor", figures.speedup}}},
                      {"environment", {{"device", "CPU"}, {"libs", {{"accelopt", "0.1.0"}}}}},
                      {"timestamp", view.run.updated_at},
                      {"accelopt",
                       {{"status", kernel::status_name(verdict->status)},
                        {"percent_of_peak", figures.percent_of_peak},
                        {"message", verdict->message}}}};
  }
  return Json{
      {"definition", view.task()},
      {"solution", solution_name(view, candidate)},
      {"workload",
       {{"uuid", fmt::format("{}-{}", view.task(), workload)}, {"axes", axes}, {"inputs", inputs}}},
      {"evaluation", evaluation}};
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string candidates_csv(const RunView& view) {
  std::string csv =
      "candidate,parent,iteration,kind,author,status,speedup,speedup_low,speedup_high,latency_ms,"
      "percent_of_peak,reused_from,plan\n";
  for (const auto& candidate : view.candidates) {
    const kernel::Verdict* verdict = view.verdict(candidate.id);
    auto trace = view.traces.find(candidate.id);
    // The run's figures (one % of peak per run), as every table shows them.
    search::Figures figures = view.figures(candidate.id);
    bool timed = figures.speedup > 0;
    csv +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", candidate.id,
                    candidate.parent ? std::to_string(*candidate.parent) : "", candidate.iteration,
                    store::kind_name(candidate.kind), csv_field(candidate.author),
                    verdict ? std::string(kernel::status_name(verdict->status)) : "",
                    timed ? fmt::format("{:.4f}", figures.speedup) : "",
                    timed ? fmt::format("{:.4f}", figures.speedup_low) : "",
                    timed ? fmt::format("{:.4f}", figures.speedup_high) : "",
                    timed ? fmt::format("{:.6g}", figures.latency_seconds * 1e3) : "",
                    timed ? fmt::format("{:.2f}", figures.percent_of_peak) : "",
                    trace != view.traces.end() && trace->second.reused_from
                        ? std::to_string(*trace->second.reused_from)
                        : "",
                    csv_field(one_line(candidate.plan.value("text", ""), 200)));
  }
  return csv;
}

std::string export_flashinfer(const RunView& view, const std::filesystem::path& directory) {
  make_directory(directory);
  Json definition = definition_record(view);
  std::string entry_point = "kernel";
  double baseline_ms = view.scale.baseline_latency() * 1e3;
  std::string solutions, traces;
  for (const auto& candidate : view.candidates) {
    solutions += solution_record(view, candidate, entry_point).dump() + "\n";
    traces += trace_record(view, candidate, definition, baseline_ms).dump() + "\n";
  }
  write_file_atomic(directory / "definitions.jsonl", definition.dump() + "\n");
  write_file_atomic(directory / "solutions.jsonl", solutions);
  write_file_atomic(directory / "traces.jsonl", traces);
  write_file_atomic(directory / "candidates.csv", candidates_csv(view));
  return fmt::format(
      "exported run {} as FlashInfer Trace: 1 definition, {} solutions, {} traces, "
      "candidates.csv to {}",
      view.run.id, view.candidates.size(), view.candidates.size(), directory.string());
}

constexpr const char* kExportMarker = ".accelopt-export.json";

// The run whose export `directory` holds: its marker's, or an older accelopt export's run.json.
std::optional<int64_t> exported_run(const std::filesystem::path& directory) {
  for (const char* file : {kExportMarker, "run.json"}) {
    std::filesystem::path path = directory / file;
    if (!std::filesystem::is_regular_file(path)) continue;
    try {
      Json json = Json::parse(read_file(path));
      if (json.contains("run") && json["run"].is_number_integer())
        return json["run"].get<int64_t>();
    } catch (const Json::exception&) {
      // not one of ours: no run to name
    }
  }
  return std::nullopt;
}

void check_not_another_runs_export(const RunView& view, const std::filesystem::path& directory) {
  std::optional<int64_t> there = exported_run(directory);
  if (!there || *there == view.run.id) return;
  throw UserError(fmt::format(
      "{} holds the export of run {}: run {}'s files would mix with it; choose another --out, "
      "or pass --force to write over it",
      directory.string(), *there, view.run.id));
}

}  // namespace

std::string export_run(const RunView& view, const std::filesystem::path& directory,
                       ExportFormat format, ExportOverwrite overwrite) {
  if (overwrite == ExportOverwrite::kRefuse) check_not_another_runs_export(view, directory);
  std::string line = format == ExportFormat::kAccelopt ? export_accelopt(view, directory)
                                                       : export_flashinfer(view, directory);
  write_file_atomic(directory / kExportMarker, Json{{"run", view.run.id}}.dump() + "\n");
  return line;
}

}  // namespace accelopt::report
