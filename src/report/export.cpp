#include "report/export.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "report/run_text.h"

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
  // best.cpp (best.cu, ...) is the confirmed winner when the run ended with a confirmation.
  const std::string& extension = view.settings.kernel_extension;
  auto winner = view.best();
  for (const auto& kernel : view.final_beam) {
    const store::CandidateRecord* candidate = view.candidate(kernel.candidate);
    if (candidate == nullptr) continue;
    std::string name = fmt::format("{}_c{}{}", ++rank, candidate->id, extension);
    write_file_atomic(directory / "kernels" / name, candidate->source);
    if (winner && winner->candidate == candidate->id) {
      write_file_atomic(directory / ("best" + extension), candidate->source);
      write_file_atomic(directory / (view.task() + extension), candidate->source);
    }
    best.push_back(Json{{"file", "kernels/" + name},
                        {"candidate", candidate->id},
                        {"winner", winner && winner->candidate == candidate->id},
                        {"figures", figures_json(view.figures(candidate->id))},
                        {"verdict", kernel.verdict.to_json()}});
  }
  // The kernel the run's final line names, with the same figure and which measurement it is.
  Json winner_json = nullptr;
  if (winner) {
    winner_json = Json{{"candidate", winner->candidate},
                       {"confirmed", winner->confirmed},
                       {"figures", figures_json(winner->figures)},
                       {"origin", winner->origin}};
  }
  Json traces = Json::array();
  for (const auto& candidate : view.candidates) traces.push_back(trace_json(view, candidate));
  write_file_atomic(directory / "traces.json", traces.dump(2) + "\n");
  Json run{{"run", view.run.id},
           {"state", view.run.state},
           {"config", view.run.config},
           {"winner", winner_json},
           {"best", best}};
  write_file_atomic(directory / "run.json", run.dump(2) + "\n");
  std::string line = fmt::format("exported run {}: {} kernels, {} traces to {}", view.run.id,
                                 best.size(), traces.size(), directory.string());
  if (!best.empty()) {
    line += fmt::format(
        "\nthe best kernel is {}: `accelopt bench --kernels {} --tasks {}{}` times it",
        (directory / (view.task() + extension)).string(), directory.string(), view.task(),
        view.settings.platform == "cpu" ? "" : " --platform " + view.settings.platform);
  }
  return line;
}

// FlashInfer-Bench's "FlashInfer Trace" (github.com/flashinfer-ai/flashinfer-bench,
// flashinfer_bench/data/): every record carries the schema's fields and no others, in the folders
// its TraceSet.from_path reads. flashinfer_trace_check.py states the rules with their sources.
constexpr const char* kAcceloptVersion = "0.1.0";

// FlashInfer's validator wants each folder level to equal its record's field (author, op_type,
// definition, name), so these are names that make one path component.
std::string path_component(std::string_view text) {
  std::string safe;
  for (char c : text) {
    bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    safe += plain ? c : '-';
  }
  return safe.empty() || safe == "." || safe == ".." ? "unknown" : safe;
}

// One JSON line; text that is not UTF-8 (a kernel's bytes) is replaced rather than refused.
std::string json_line(const Json& record) {
  return record.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string json_file(const Json& record) {
  return record.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

void write_under(const std::filesystem::path& file, const std::string& text) {
  make_directory(file.parent_path());
  write_file_atomic(file, text);
}

// FlashInfer's statuses are ours less the two REJECTED_ ones (a source that breaks a rule never
// built, and a kernel faster than physics computed something else), EVALUATION_FAILED (no
// worker could run it) and MACHINE_BUSY (the machine was too busy to judge it: no verdict, as a
// run that ended early).
std::string flashinfer_status(kernel::Status status) {
  switch (status) {
    case kernel::Status::kRejectedSource:
      return "COMPILE_ERROR";
    case kernel::Status::kRejectedPhysics:
      return "INCORRECT_NUMERICAL";
    case kernel::Status::kEvaluationFailed:
    case kernel::Status::kMachineBusy:
      return "RUNTIME_ERROR";
    default:
      return std::string(kernel::status_name(status));
  }
}

// What the whole export shares: the task's names, its definition.json and the run's machine.
struct FlashinferRun {
  const RunView& view;
  Json task = Json::object();  // the task's definition.json; empty when it was not found
  std::string definition, op_type, run_tag;
  std::string language, source_path;  // "cpp" and kernel.cpp, "cuda" and kernel.cu, ...
};

Json read_task_definition(const RunView& view) {
  try {
    return Json::parse(
        read_file(std::filesystem::path(view.settings.task_directory) / "definition.json"));
  } catch (const std::exception&) {
    return Json::object();
  }
}

// Distinguishes this run from the same-numbered run of another workspace or machine.
std::string run_tag(const RunView& view, const std::string& workspace) {
  std::string identity =
      fmt::format("{}\n{}\n{}\n{}", workspace, view.run.origin, view.run.created_at, view.run.id);
  return fmt::format("run{}-{}", view.run.id, sha256_hex(identity).substr(0, 8));
}

// FlashInfer-Bench's language name for a kernel file's extension: "cpp", "cuda", "python"; the
// extension itself for others.
std::string language_of(const std::string& extension) {
  if (extension == ".cu") return "cuda";
  if (extension == ".py") return "python";
  if (extension == ".cpp" || extension == ".cc") return "cpp";
  return extension.starts_with(".") ? extension.substr(1) : extension;
}

std::string op_type_of(const Json& task) {
  auto found = task.find("op_type");
  return path_component(found != task.end() && found->is_string() ? found->get<std::string>()
                                                                  : "unknown");
}

FlashinferRun flashinfer_run(const RunView& view, const std::string& workspace) {
  Json task = read_task_definition(view);
  const std::string& extension = view.settings.kernel_extension;
  return FlashinferRun{.view = view,
                       .task = task,
                       .definition = path_component(view.task()),
                       .op_type = op_type_of(task),
                       .run_tag = run_tag(view, workspace),
                       .language = language_of(extension),
                       .source_path = "kernel" + extension};
}

std::string text_field(const Json& object, const char* key, const std::string& otherwise) {
  auto found = object.find(key);
  return found != object.end() && found->is_string() && !found->get<std::string>().empty()
             ? found->get<std::string>()
             : otherwise;
}

// FlashInfer's reference is Python with a `run`. A task's reference.py is one already, given as
// it is; a C++ reference is quoted for a reader, and its `run` says so rather than computing
// anything.
std::string python_reference(const FlashinferRun& run) {
  std::filesystem::path directory(run.view.settings.task_directory);
  if (std::filesystem::exists(directory / "reference.py")) {
    try {
      return read_file(directory / "reference.py");
    } catch (const std::exception&) {
      // unreadable now: quote the C++ reference instead
    }
  }
  std::filesystem::path file = directory / "reference.cpp";
  std::string reference;
  try {
    reference = read_file(file);
  } catch (const std::exception&) {
    reference = "(not found at export)";
  }
  std::string python = fmt::format(
      "# accelopt's reference for {} is C++ ({}), quoted here; accelopt checks kernels against "
      "it.\n#\n",
      run.definition, file.string());
  std::istringstream lines(reference);
  for (std::string line; std::getline(lines, line);) python += "# " + line + "\n";
  return python +
         "\n\ndef run(*args, **kwargs):\n"
         "    raise NotImplementedError(\"accelopt's reference is C++: see the comment above\")\n";
}

Json tensor_specs(const Json& tensors) {
  Json specs = Json::object();
  if (!tensors.is_object()) return specs;
  for (const auto& [name, tensor] : tensors.items()) {
    Json spec{{"shape", tensor.contains("shape") ? tensor["shape"] : Json(nullptr)},
              {"dtype", tensor.value("dtype", "float32")}};
    if (tensor.contains("description")) spec["description"] = tensor["description"];
    specs[name] = spec;
  }
  return specs;
}

Json axis_specs(const Json& axes) {
  Json specs = Json::object();
  if (!axes.is_object()) return specs;
  for (const auto& [name, axis] : axes.items()) {
    Json spec{{"type", axis.value("type", "var")}};
    if (axis.contains("value")) spec["value"] = axis["value"];
    if (axis.contains("description")) spec["description"] = axis["description"];
    specs[name] = spec;
  }
  return specs;
}

Json definition_record(const FlashinferRun& run) {
  const Json& task = run.task;
  Json definition{{"name", run.definition},
                  {"op_type", run.op_type},
                  {"axes", axis_specs(task.value("axes", Json::object()))},
                  {"inputs", tensor_specs(task.value("inputs", Json::object()))},
                  {"outputs", tensor_specs(task.value("outputs", Json::object()))},
                  {"reference", python_reference(run)}};
  if (task.contains("tags")) definition["tags"] = task["tags"];
  if (task.contains("constraints")) definition["constraints"] = task["constraints"];
  definition["description"] = task.empty()
                                  ? fmt::format("definition.json was not found in {} at export",
                                                run.view.settings.task_directory)
                                  : text_field(task, "description", "");
  return definition;
}

// The run's workload: its variable axes (FlashInfer binds only those) and random inputs.
Json workload_record(const FlashinferRun& run) {
  const std::string& name = run.view.settings.workload;
  Json workload_axes = Json::object();
  if (run.task.contains("workloads") && run.task["workloads"].contains(name))
    workload_axes = run.task["workloads"][name].value("axes", Json::object());
  Json task_axes = run.task.value("axes", Json::object());
  Json task_inputs = run.task.value("inputs", Json::object());
  Json axes = Json::object();
  for (const auto& [axis, spec] : task_axes.items()) {
    if (spec.value("type", "var") == "var" && workload_axes.contains(axis))
      axes[axis] = workload_axes[axis];
  }
  Json inputs = Json::object();
  for (const auto& [input, spec] : task_inputs.items()) inputs[input] = {{"type", "random"}};
  return Json{{"uuid", fmt::format("{}-{}", run.definition, path_component(name))},
              {"axes", axes},
              {"inputs", inputs}};
}

std::string solution_name(const FlashinferRun& run, const store::CandidateRecord& candidate) {
  return fmt::format("{}_{}_c{}", run.definition, run.run_tag, candidate.id);
}

Json solution_record(const FlashinferRun& run, const store::CandidateRecord& candidate) {
  std::string entry_point = text_field(run.task, "entry_point", "kernel");
  std::string source =
      candidate.source.empty() ? "// the candidate's source was empty\n" : candidate.source;
  return Json{{"name", solution_name(run, candidate)},
              {"definition", run.definition},
              {"author", path_component(candidate.author)},
              {"description", candidate.plan.value("text", "")},
              {"spec",
               {{"language", run.language},
                {"target_hardware", Json::array({or_unknown(run.view.settings.platform)})},
                {"entry_point", run.source_path + "::" + entry_point},
                {"dependencies", Json::array()},
                {"destination_passing_style", true}}},
              {"sources", Json::array({{{"path", run.source_path}, {"content", source}}})}};
}

// The machine the run recorded (RunSettings::machine); runs without one say so.
Json environment_record(const RunView& view) {
  const Json& machine = view.settings.machine;
  std::string hardware = text_field(
      machine, "gpu",
      text_field(machine, "cpu", or_unknown(view.settings.platform) + " (machine not recorded)"));
  return Json{{"hardware", hardware},
              {"libs",
               {{"accelopt", kAcceloptVersion},
                {"compiler", text_field(machine, "compiler", "not recorded")}}}};
}

// FlashInfer's errors are numbers >= 0 or NaN; JSON has no NaN, so non-finite ones are the strings
// its own serializer writes.
Json error_value(double error) {
  if (std::isnan(error)) return "NaN";
  if (std::isinf(error)) return "Infinity";
  return error;
}

std::string evaluation_log(const kernel::Verdict& verdict) {
  std::string log(kernel::status_name(verdict.status));
  if (!verdict.message.empty()) log += ": " + verdict.message;
  if (!verdict.log.empty()) log += "\n" + verdict.log;
  return log;
}

// FlashInfer's rule: PASSED carries correctness and performance, INCORRECT_NUMERICAL correctness
// only, every other status neither.
Json evaluation_record(const FlashinferRun& run, const store::TraceRecord& trace,
                       double baseline_ms) {
  const kernel::Verdict& verdict = trace.verdict;
  std::string status = flashinfer_status(verdict.status);
  Json evaluation{
      {"status", status},
      {"environment", environment_record(run.view)},
      {"timestamp", trace.created_at.empty() ? run.view.run.updated_at : trace.created_at},
      {"log", evaluation_log(verdict)}};
  if (status == "PASSED" || status == "INCORRECT_NUMERICAL") {
    evaluation["correctness"] = {
        {"max_relative_error", error_value(verdict.correctness.max_rel_error)},
        {"max_absolute_error", error_value(verdict.correctness.max_abs_error)}};
  }
  if (status == "PASSED") {
    // The run's figures (one % of peak per run), as every table shows them.
    search::Figures figures = run.view.figures(trace.candidate_id);
    evaluation["performance"] = {{"latency_ms", figures.latency_seconds * 1e3},
                                 {"reference_latency_ms", baseline_ms},
                                 {"speedup_factor", figures.speedup}};
  }
  return evaluation;
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
      "percent_of_peak,reused_from,winner,plan\n";
  auto winner = view.best();
  for (const auto& candidate : view.candidates) {
    const kernel::Verdict* verdict = view.verdict(candidate.id);
    auto trace = view.traces.find(candidate.id);
    // The run's figures (one % of peak per run), as every table shows them.
    search::Figures figures = view.figures(candidate.id);
    bool timed = figures.speedup > 0;
    csv +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", candidate.id,
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
                    winner && winner->candidate == candidate.id ? "1" : "",
                    csv_field(one_line(candidate.plan.value("text", ""), 200)));
  }
  return csv;
}

std::string export_flashinfer(const RunView& view, const std::filesystem::path& directory,
                              const std::string& workspace) {
  make_directory(directory);
  FlashinferRun run = flashinfer_run(view, workspace);
  Json workload = workload_record(run);
  std::string task_file = run.definition + ".json";
  write_under(directory / "definitions" / run.op_type / task_file,
              json_file(definition_record(run)));
  write_under(directory / "workloads" / run.op_type / (run.definition + ".jsonl"),
              json_line({{"definition", run.definition},
                         {"workload", workload},
                         {"solution", nullptr},
                         {"evaluation", nullptr}}));
  double baseline_ms = view.scale.baseline_latency() * 1e3;
  std::map<std::string, std::string> traces_by_author;
  size_t traces = 0;
  for (const auto& candidate : view.candidates) {
    std::string author = path_component(candidate.author);
    std::string name = solution_name(run, candidate);
    write_under(directory / "solutions" / author / run.op_type / run.definition / (name + ".json"),
                json_file(solution_record(run, candidate)));
    auto trace = view.traces.find(candidate.id);
    if (trace == view.traces.end()) continue;  // not evaluated: FlashInfer has no such trace
    traces_by_author[author] +=
        json_line({{"definition", run.definition},
                   {"workload", workload},
                   {"solution", name},
                   {"evaluation", evaluation_record(run, trace->second, baseline_ms)}});
    ++traces;
  }
  for (const auto& [author, lines] : traces_by_author)
    write_under(directory / "traces" / author / run.op_type / (run.definition + ".jsonl"), lines);
  write_file_atomic(directory / "candidates.csv", candidates_csv(view));
  std::string line = fmt::format(
      "exported run {} as FlashInfer Trace: 1 definition, 1 workload, {} solutions, {} traces, "
      "candidates.csv to {} (FlashInfer-Bench: TraceSet.from_path(\"{}\"))",
      view.run.id, view.candidates.size(), traces, directory.string(), directory.string());
  // FlashInfer's records have no field for it: the run's choice is said here and in the CSV.
  if (auto winner = view.best(); winner && view.candidate(winner->candidate) != nullptr) {
    line += fmt::format("\nthe run's best is #{} (solution {}){}: {}", winner->candidate,
                        solution_name(run, *view.candidate(winner->candidate)),
                        winner->confirmed ? ", confirmed" : ", not confirmed",
                        figures_text(winner->figures));
  }
  return line;
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
                       ExportFormat format, const std::string& workspace,
                       ExportOverwrite overwrite) {
  if (overwrite == ExportOverwrite::kRefuse) check_not_another_runs_export(view, directory);
  std::string line = format == ExportFormat::kAccelopt
                         ? export_accelopt(view, directory)
                         : export_flashinfer(view, directory, workspace);
  write_file_atomic(directory / kExportMarker, Json{{"run", view.run.id}}.dump() + "\n");
  return line;
}

}  // namespace accelopt::report
