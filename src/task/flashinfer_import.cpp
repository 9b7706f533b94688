#include "task/flashinfer_import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "common/json.h"
#include "common/subprocess.h"
#include "task/abi.h"
#include "task/baseline_stub.h"
#include "task/expression.h"
#include "task/task.h"

namespace accelopt::task {
namespace {

// Elements of `shape` for the axis values in `axes`.
int64_t elements(const Json& shape, const Json& axes) {
  int64_t count = 1;
  for (const Json& axis : shape) count *= axes.at(axis.get<std::string>()).get<int64_t>();
  return count;
}

// "4*(M*K + K*N) + 2*(M*N)": compulsory traffic, every input read and every output written once,
// each element at its dtype's width.
std::string bytes_expression(const Json& inputs, const Json& outputs) {
  std::map<size_t, std::string> sums;  // by element width
  for (const Json* tensors : {&inputs, &outputs}) {
    for (const auto& [name, tensor] : tensors->items()) {
      std::string term;
      for (const Json& axis : tensor.at("shape")) {
        term += (term.empty() ? "" : "*") + axis.get<std::string>();
      }
      size_t width = dtype_size(*parse_dtype(tensor.at("dtype").get<std::string>()));
      std::string& sum = sums[width];
      sum += (sum.empty() ? "" : " + ") + (term.empty() ? std::string("1") : term);
    }
  }
  std::string expression;
  for (auto width = sums.rbegin(); width != sums.rend(); ++width) {
    expression +=
        fmt::format("{}{}*({})", expression.empty() ? "" : " + ", width->first, width->second);
  }
  return expression;
}

// `text` parsed, or UserError "<origin>: not valid JSON: parse error at line L, column C: ...".
Json parse_json(const std::string& text, const std::string& origin) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& error) {
    std::string message = error.what();
    if (message.starts_with("[json.exception.")) message = message.substr(message.find(']') + 2);
    throw UserError(origin + ": not valid JSON: " + message);
  }
}

// Reads `reference` with Python's own parser (ast.parse runs none of it) and returns the top-level
// run()'s parameters as "name name ... [*] [**]", or "error: ..." for what ast.parse refused.
constexpr const char* kReadReference = R"python(
import ast, sys
try:
    tree = ast.parse(open(sys.argv[1], encoding="utf-8").read(), filename="reference")
except SyntaxError as error:
    print("error: not valid Python: line %s, column %s: %s" % (error.lineno, error.offset, error.msg))
    sys.exit(0)
runs = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "run"]
if not runs:
    print("error: no top-level `def run(...)`")
    sys.exit(0)
arguments = runs[-1].args
required = len(arguments.posonlyargs + arguments.args) - len(arguments.defaults)
words = []
for index, argument in enumerate(arguments.posonlyargs + arguments.args):
    words.append(argument.arg + ("" if index >= required else "!"))
for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
    words.append(argument.arg + ("" if default is not None else "!"))
if arguments.vararg: words.append("*")
if arguments.kwarg: words.append("**")
print(" ".join(words))
)python";

}  // namespace

std::optional<std::string> check_reference(const std::string& reference,
                                           const std::vector<std::string>& inputs,
                                           const std::string& origin,
                                           const std::filesystem::path& interpreter) {
  if (!std::filesystem::exists(interpreter)) {
    return "reference: not read at import (" + interpreter.string() +
           " is not installed): its syntax and run()'s parameters are checked at the first "
           "evaluation";
  }
  TempDir scratch("accelopt-import");
  write_file_atomic(scratch.path() / "reference.py", reference);
  write_file_atomic(scratch.path() / "read.py", kReadReference);
  SpawnOptions options;
  options.argv = {interpreter.string(), "-I", (scratch.path() / "read.py").string(),
                  (scratch.path() / "reference.py").string()};
  options.environment = clean_environment(scratch.path());
  CommandResult read = run_command(options, std::chrono::seconds(30));
  std::string answer = read.output;
  while (!answer.empty() && (answer.back() == '\n' || answer.back() == '\r')) answer.pop_back();
  if (!read.status.exited || read.status.exit_code != 0) {
    throw InternalError("reading the reference with " + interpreter.string() + ": " +
                        read.status.describe() + "\n" + answer);
  }
  if (answer.starts_with("error: ")) {
    throw UserError(origin + ": reference: " + answer.substr(7));
  }
  std::set<std::string> parameters, required;
  bool any_keyword = false;
  std::istringstream words(answer);
  for (std::string word; words >> word;) {
    if (word == "**") any_keyword = true;
    if (word == "*" || word == "**") continue;
    if (word.ends_with("!")) {
      word.pop_back();
      required.insert(word);
    }
    parameters.insert(word);
  }
  std::vector<std::string> missing, unknown;
  for (const std::string& input : inputs) {
    if (!parameters.count(input) && !any_keyword) missing.push_back(input);
  }
  for (const std::string& parameter : required) {
    if (std::find(inputs.begin(), inputs.end(), parameter) == inputs.end()) {
      unknown.push_back(parameter);
    }
  }
  if (!missing.empty() || !unknown.empty()) {
    std::string why;
    if (!missing.empty()) why += fmt::format("has no parameter {}", fmt::join(missing, ", "));
    if (!unknown.empty()) {
      why +=
          fmt::format("{}needs {}, which {}", why.empty() ? "" : " and ", fmt::join(unknown, ", "),
                      unknown.size() == 1 ? "is not an input" : "are not inputs");
    }
    throw UserError(fmt::format(
        "{}: reference: the harness calls run({}) with the inputs by name, but run() {}", origin,
        fmt::join(inputs, ", "), why));
  }
  return std::nullopt;
}

namespace {

// The var axes of the workload import makes up where none were given: 16 each, then an axis that a
// constraint "axis == expression" names alone on its left set to the expression's value (passes
// until nothing moves). Throws UserError where a constraint still does not hold.
Json guessed_axes(const Json& axes, const std::vector<std::string>& var_axes,
                  const std::vector<Constraint>& constraints, const std::string& origin) {
  std::map<std::string, double> values;
  for (const auto& [name, axis] : axes.items()) {
    values[name] = axis["type"] == "const" ? axis["value"].get<double>() : 16.0;
  }
  settle_constraints(values, {var_axes.begin(), var_axes.end()}, constraints);
  Json guessed = Json::object();
  for (const std::string& name : var_axes) guessed[name] = static_cast<int64_t>(values[name]);
  for (const Constraint& constraint : constraints) {
    if (constraint.reads.empty() && !constraint_holds(constraint, values)) {
      throw UserError(fmt::format(
          "{}: no workloads given (--workloads FILE.jsonl), and the one import would make (every "
          "var axis 16) breaks the constraint \"{}\": give the workloads",
          origin, constraint.text));
    }
  }
  return guessed;
}

// The definition's constraints that accelopt's expressions state over its axes and inputs; each
// other one said in `notes`.
std::vector<Constraint> kept_constraints(const Json& source, const std::string& origin,
                                         std::vector<std::string>& notes) {
  std::vector<Constraint> constraints;
  if (!source.contains("constraints")) return constraints;
  if (!source.at("constraints").is_array()) {
    throw UserError(origin + ": constraints: expected an array of strings");
  }
  auto has = [&](const char* field, const std::string& name) {
    return source.contains(field) && source.at(field).contains(name);
  };
  for (const Json& text : source.at("constraints")) {
    std::string why;
    try {
      if (!text.is_string()) throw UserError("not a string");
      Constraint constraint = parse_constraint(text.get<std::string>());
      for (const std::string& side : {constraint.left, constraint.right}) {
        for (const std::string& name : expression_names(side)) {
          if (!has("axes", name)) throw UserError("'" + name + "' is not an axis");
        }
      }
      for (const ElementRead& read : constraint.reads) {
        if (!has("inputs", read.tensor)) {
          throw UserError("'" + read.tensor + "' is not an input");
        }
      }
      constraints.push_back(std::move(constraint));
      continue;
    } catch (const UserError& error) {
      why = error.what();
    }
    notes.push_back(fmt::format(
        "constraints: {} not kept ({}): accelopt states a constraint as two expressions over the "
        "axes and inputs' elements (+ - * / ^, min, max, log2, x[i]) and one of == != <= >= < >; "
        "check it on your workloads yourself, or write it so under \"constraints\" in "
        "definition.json",
        text.dump(), why));
  }
  return constraints;
}

// For each input a constraint "expression == x[-1]" (either way round, the expression over axes
// alone) ends, the expression: that input is an indptr, 0 to the expression.
std::map<std::string, std::string> offsets_from_constraints(
    const std::vector<Constraint>& constraints) {
  auto last_element = [](const std::string& side) -> std::optional<std::string> {
    std::vector<ElementRead> reads = expression_elements(side);
    std::string compact;
    for (char c : side) {
      if (c != ' ' && c != '\t') compact += c;
    }
    if (reads.size() != 1 || reads[0].index != -1 ||
        (compact != element_name(reads[0]) && compact != element_name(reads[0]) + ".item()")) {
      return std::nullopt;
    }
    return reads[0].tensor;
  };
  std::map<std::string, std::string> totals;
  for (const Constraint& constraint : constraints) {
    if (constraint.comparison != "==") continue;
    for (auto [end, total] : {std::pair{&constraint.right, &constraint.left},
                              std::pair{&constraint.left, &constraint.right}}) {
      std::optional<std::string> tensor = last_element(*end);
      if (tensor && expression_elements(*total).empty()) totals[*tensor] = *total;
    }
  }
  return totals;
}

// The dtypes the harness runs (task/dtype.h); FlashInfer-Bench's others are refused by name.
bool importable(const std::string& dtype) {
  return dtype == "float32" || dtype == "bfloat16" || dtype == "float16" ||
         dtype == "float8_e4m3fn" || dtype == "int8" || dtype == "int32";
}

// The definition's `kind` ("inputs" or "outputs") as a task's tensors: index inputs drawn as an
// indptr where a constraint ends them (offsets_totals), else as zeros, and inputs of const axes
// alone held as constant weights, each said in `notes`.
Json imported_tensors(const Json& source, const std::string& kind,
                      const std::vector<std::string>& var_axes,
                      const std::map<std::string, std::string>& offsets_totals,
                      const std::string& origin, std::vector<std::string>& notes) {
  if (!source.contains(kind)) throw UserError(origin + ": " + kind + ": missing");
  bool inputs = kind == "inputs";
  Json tensors = Json::object();
  for (const auto& [name, tensor] : source.at(kind).items()) {
    std::string dtype = tensor.value("dtype", std::string());
    if (!importable(dtype)) {
      std::string why =
          dtype.starts_with("float8") || dtype.starts_with("float4")
              ? "of the FP8 and FP4 formats the harness runs only float8_e4m3fn so far"
              : "the harness runs float32, bfloat16, float16, float8_e4m3fn, int8 and int32 "
                "tensors";
      throw UserError(fmt::format("{}: {}.{}.dtype: '{}'; {}", origin, kind, name, dtype, why));
    }
    Json kept = {
        {"dtype", dtype},
        {"shape", tensor.contains("shape") && !tensor.at("shape").is_null() ? tensor.at("shape")
                                                                            : Json::array()}};
    if (tensor.contains("description")) kept["description"] = tensor.at("description");
    // FlashInfer-Bench's weights: an input whose every axis is constant is the same tensor in every
    // workload, so it is held once per evaluation rather than drawn per case.
    bool weights = inputs && !kept["shape"].empty() &&
                   std::none_of(kept["shape"].begin(), kept["shape"].end(), [&](const Json& axis) {
                     return !axis.is_string() ||
                            std::find(var_axes.begin(), var_axes.end(), axis.get<std::string>()) !=
                                var_axes.end();
                   });
    if (weights) {
      kept["constant"] = true;
      notes.push_back(fmt::format(
          "inputs.{}: every axis constant, so held as weights are: drawn once per evaluation and "
          "shared by its cases (\"constant\": true; remove it to draw it per case)",
          name));
    }
    auto total = offsets_totals.find(name);
    if (inputs && dtype == "int32" && kept["shape"].size() == 1 && total != offsets_totals.end()) {
      // An indptr whose last element a constraint names: a valid one by construction.
      kept["distribution"] = {{"kind", "offsets"}, {"total", total->second}};
      notes.push_back(fmt::format(
          "inputs.{}: drawn as offsets from 0 to {}, as the constraints say (each step at least "
          "0: set \"min_step\": 1 in its distribution where an empty row is not what it holds)",
          name, total->second));
    } else if (inputs && (dtype == "int8" || dtype == "int32")) {
      // Zeros are a valid index into any tensor; the range that is valid the import cannot know.
      kept["distribution"] = {{"kind", "integer"}, {"low", 0}, {"high", 1}};
      notes.push_back(
          fmt::format("inputs.{}: {} drawn as 0 only (an index that is always in range): set its "
                      "distribution, e.g. {{\"kind\": \"integer\", \"low\": 0, \"high\": "
                      "\"num_pages\"}} for indices into a workload's pages, {{\"kind\": "
                      "\"offsets\", \"total\": \"num_kv_indices\"}} for an indptr "
                      "(docs/task-format.md, \"Index tensors\")",
                      name, dtype));
    }
    tensors[name] = kept;
  }
  return tensors;
}

// A baseline that compiles and is marked not correct: the entry point's prototype from the header
// a kernel would see, a body that writes zeros.
std::string stub_baseline(const Task& task) {
  std::string header = generate_kernel_header(task, task.default_workload());
  size_t prototype = header.find("extern \"C\"");
  std::string signature = header.substr(prototype, header.find(';', prototype) - prototype);
  std::string outputs;
  for (const TensorSpec& output : task.outputs) {
    std::string size;
    for (const std::string& axis : output.shape) size += (size.empty() ? "" : " * ") + axis;
    outputs += fmt::format("  for (std::int64_t i = 0; i < {}; ++i) {}[i] = 0;\n",
                           size.empty() ? "1" : size, output.name);
  }
  return fmt::format(
      "{}\n"
      "// The baseline of {}, written by accelopt task import: it compiles, and it is NOT "
      "correct.\n"
      "// Write here the straightforward loops of reference.py (the user's or an agent's job) and\n"
      "// remove the marker line above; until then the task has no baseline (`optimize` with a\n"
      "// model starts from a naive kernel the executor writes).\n"
      "#include <cstdint>\n\n#include \"accelopt_task.h\"\n\n{} {{\n{}}}\n",
      kBaselineStubMarker, task.name, signature, outputs);
}

// A workload line's inputs: scalars into `constant_inputs`; safetensors files copied into the
// task's tensors/ folder (imported.files, one copy per file whatever the workloads sharing it) and
// returned as the workload's file inputs; others said in imported.notes.
Json inputs_of_workload(const Json& workload, const std::string& where,
                        const std::string& workloads_origin, Json& constant_inputs,
                        ImportedTask& imported) {
  Json workload_inputs = workload.value("inputs", Json::object());
  Json file_inputs = Json::object();
  for (const auto& [name, input] : workload_inputs.items()) {
    std::string type = input.value("type", std::string("random"));
    std::filesystem::path file = input.value("path", std::string());
    if (file.is_relative()) file = std::filesystem::path(workloads_origin).parent_path() / file;
    if (type == "scalar") {
      constant_inputs[name] = input.at("value");
    } else if (type == "safetensors" && std::filesystem::is_regular_file(file)) {
      // Copied into the task's tensors/ folder, one copy per file whatever the workloads
      // sharing it; load_task checks the tensor's dtype and shape.
      std::string& copy = imported.files[std::filesystem::absolute(file).lexically_normal()];
      if (copy.empty()) {
        copy = fmt::format("tensors/{}-{}", imported.files.size(), file.filename().string());
      }
      file_inputs[name] = {{"safetensors", copy},
                           {"key", input.value("tensor_key", std::string(name))}};
    } else if (type == "safetensors") {
      imported.notes.push_back(fmt::format(
          "{}: input '{}' is in {}, which is not there: it is drawn from its distribution in "
          "definition.json; give the file (next to the workloads file, or by a path from it)",
          where, name, file.string()));
    } else if (type != "random") {
      imported.notes.push_back(fmt::format(
          "{}: input '{}' is '{}' there (loaded from a file): inputs are drawn here, from each "
          "input's distribution in definition.json; set one that fits its data",
          where, name, type));
    }
  }
  return file_inputs;
}

// The workloads of `jsonl` (FlashInfer-Bench's lines, or trace lines holding one), each input a
// line gives in a safetensors file copied into imported.files; the smallest again as `small`, or
// without lines a `small` one import makes up.
struct ImportedWorkloads {
  Json workloads = Json::object();
  Json constant_inputs = Json::object();  // inputs the lines give as scalars: name -> value
  std::optional<Json> tolerance;          // the loosest the lines give, over the dtype's defaults
};
ImportedWorkloads imported_workloads(const Json& definition,
                                     const std::vector<std::string>& var_axes,
                                     const std::vector<Constraint>& constraints,
                                     const std::string& jsonl, const std::string& workloads_origin,
                                     const std::string& origin, ImportedTask& imported) {
  const Json& axes = definition.at("axes");
  ImportedWorkloads result;
  Json& workloads = result.workloads;
  // The first output's dtype's defaults (task.h: default_tolerance), loosened to the workloads'.
  const Json& first_output = definition.at("outputs").begin().value();
  Tolerance defaults = default_tolerance(*parse_dtype(first_output.at("dtype").get<std::string>()));
  Json tolerance = {{"rel_l2", defaults.rel_l2}, {"atol", defaults.atol}, {"rtol", defaults.rtol}};
  bool tolerance_given = false;
  std::istringstream lines(jsonl);
  std::string line;
  int line_number = 0;
  std::string smallest;
  int64_t smallest_elements = std::numeric_limits<int64_t>::max();
  while (std::getline(lines, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = fmt::format("{}:{}", workloads_origin, line_number);
    Json workload = parse_json(line, where);
    // A line is a workload, or a trace's line that holds one under "workload" (FlashInfer-Bench's
    // traces and the AccelOpt repository's selected workloads are written so).
    if (workload.is_object() && workload.contains("workload") && workload["workload"].is_object()) {
      std::string named = workload.value("definition", std::string());
      if (!named.empty() && named != definition.at("name").get<std::string>()) {
        throw UserError(where + ": a workload of definition '" + named + "', not of this one");
      }
      workload = Json(workload["workload"]);
    }
    if (!workload.is_object() || !workload.contains("axes")) {
      throw UserError(where +
                      ": not a FlashInfer-Bench workload (a JSON object with axes, or a trace "
                      "line holding one under \"workload\")");
    }
    Json all_axes = workload.at("axes");
    for (const auto& [name, axis] : axes.items()) {
      if (axis["type"] == "const") all_axes[name] = axis["value"];
    }
    for (const std::string& name : var_axes) {
      if (!all_axes.contains(name)) throw UserError(where + ": axes: no value for '" + name + "'");
    }
    Json file_inputs =
        inputs_of_workload(workload, where, workloads_origin, result.constant_inputs, imported);
    if (workload.contains("tolerance")) {
      const Json& given = workload.at("tolerance");
      if (given.contains("max_atol")) {
        tolerance["atol"] =
            std::max(tolerance["atol"].get<double>(), given["max_atol"].get<double>());
      }
      if (given.contains("max_rtol")) {
        tolerance["rtol"] =
            std::max(tolerance["rtol"].get<double>(), given["max_rtol"].get<double>());
      }
      tolerance_given = true;
    }
    std::string name = fmt::format("w{}", workloads.size() + 1);
    Json kept = {{"axes", workload.at("axes")}};
    if (!file_inputs.empty()) kept["inputs"] = file_inputs;
    if (workload.contains("uuid")) kept["description"] = "uuid " + workload.value("uuid", "");
    if (workloads.empty()) kept["default"] = true;
    int64_t size = 0;
    for (const char* kind : {"inputs", "outputs"}) {
      for (const auto& [tensor_name, tensor] : definition.at(kind).items()) {
        size += elements(tensor.at("shape"), all_axes);
      }
    }
    if (size < smallest_elements) {
      smallest_elements = size;
      smallest = name;
    }
    workloads[name] = kept;
  }
  if (workloads.empty()) {
    Json guessed = guessed_axes(axes, var_axes, constraints, origin);
    workloads["small"] = {{"axes", guessed},
                          {"default", true},
                          {"description", "every var axis 16: set by import, not by the user"}};
    if (!var_axes.empty()) {
      imported.notes.push_back(
          "workloads: none given (--workloads FILE.jsonl): a 'small' workload sets every var axis "
          "to 16 (or what a constraint \"axis == ...\" makes it); add the shapes that matter under "
          "\"workloads\" in definition.json");
    }
  } else {
    Json small = workloads[smallest];
    small.erase("default");
    small["description"] = "the smallest workload (" + smallest + "), for quick tests";
    workloads["small"] = small;
  }
  if (tolerance_given) result.tolerance = tolerance;
  return result;
}

}  // namespace

ImportedTask import_flashinfer(const std::string& definition_json, const std::string& origin,
                               const std::string& workloads_jsonl,
                               const std::string& workloads_origin) {
  Json source = parse_json(definition_json, origin);
  if (!source.is_object()) {
    throw UserError(origin + ": not a JSON object (a FlashInfer-Bench definition)");
  }
  auto require = [&](const char* field) -> const Json& {
    if (!source.contains(field)) throw UserError(origin + ": " + field + ": missing");
    return source.at(field);
  };
  ImportedTask imported;
  Json definition;
  definition["name"] = require("name");
  definition["op_type"] = source.value("op_type", std::string("unknown"));
  if (source.contains("tags")) definition["tags"] = source.at("tags");
  definition["description"] =
      source.value("description", std::string()) + " (imported from a FlashInfer-Bench definition)";

  Json axes = Json::object();
  std::vector<std::string> var_axes;
  for (const auto& [name, axis] : require("axes").items()) {
    Json kept = {{"type", axis.value("type", std::string("var"))}};
    if (kept["type"] == "const") kept["value"] = axis.at("value");
    if (kept["type"] == "var") var_axes.push_back(name);
    if (axis.contains("description")) kept["description"] = axis.at("description");
    axes[name] = kept;
  }
  definition["axes"] = axes;

  // Constraints: kept where accelopt's expressions can state them, and then checked on every
  // workload when the task is read (below, and by every later load), those that read inputs on
  // every case drawn.
  std::vector<Constraint> constraints = kept_constraints(source, origin, imported.notes);
  for (const Constraint& constraint : constraints) {
    definition["constraints"].push_back(constraint.text);
  }
  std::map<std::string, std::string> offsets_totals = offsets_from_constraints(constraints);

  for (const char* kind : {"inputs", "outputs"}) {
    definition[kind] =
        imported_tensors(source, kind, var_axes, offsets_totals, origin, imported.notes);
  }

  const Json& reference = require("reference");
  if (!reference.is_string() || reference.get<std::string>().find("def run") == std::string::npos) {
    throw UserError(origin + ": reference: not Python text with a `def run(...)`");
  }
  imported.reference = reference.get<std::string>();
  if (imported.reference.back() != '\n') imported.reference += '\n';
  std::vector<std::string> input_names;
  for (const auto& [name, tensor] : definition["inputs"].items()) input_names.push_back(name);
  if (auto unchecked = check_reference(imported.reference, input_names, origin)) {
    imported.notes.push_back(*unchecked);
  }

  // Workloads: each line's axes; inputs given as scalars become constant distributions.
  ImportedWorkloads given = imported_workloads(definition, var_axes, constraints, workloads_jsonl,
                                               workloads_origin, origin, imported);
  Json& workloads = given.workloads;
  Json& constant_inputs = given.constant_inputs;
  definition["workloads"] = workloads;
  for (const auto& [name, value] : constant_inputs.items()) {
    if (!definition["inputs"].contains(name)) continue;
    definition["inputs"][name]["distribution"] = {{"kind", "constant"}, {"value", value}};
    imported.notes.push_back(fmt::format(
        "inputs.{}: a scalar in the workloads; kept as the constant {} for every workload", name,
        value.dump()));
  }
  if (given.tolerance) {
    definition["tolerance"] = *given.tolerance;
  } else {
    imported.notes.push_back(
        "tolerance: none in the workloads; accelopt's defaults for each output's dtype apply "
        "(float32: rel_l2 2e-5, atol 1e-5, rtol 1e-3; bfloat16 and float16: 1e-2 each): set "
        "\"tolerance\" from the outputs' scale (docs/task-format.md)");
  }
  definition["threads"] = 1;
  definition["seeds"] = 5;
  definition["entry_point"] = "kernel";
  definition["roofline"] = {
      {"mm_flops", "0"},
      {"vec_flops", "0"},
      {"bytes", bytes_expression(definition["inputs"], definition["outputs"])}};
  imported.notes.push_back(
      "roofline: the FLOP counts are not in a definition: `accelopt task flops --write` measures "
      "them from reference.py, or set roofline.mm_flops (matrix work, 2 per multiply-add) and "
      "roofline.vec_flops in definition.json as expressions over the axes; until then the peak is "
      "bound by the bytes alone");
  imported.definition = definition.dump(2) + "\n";

  // The baseline: a stub to write.
  Task task = parse_task_definition(imported.definition, ".", origin);
  imported.baseline = stub_baseline(task);
  imported.notes.push_back(
      "baseline.cpp: a stub that compiles but writes zeros (marked \"" +
      std::string(kBaselineStubMarker) +
      "\"): write the straightforward loops of reference.py there, or let a model write one "
      "(`accelopt task import ... --config FILE` with [models], or `accelopt optimize "
      "--save-baseline`)");
  return imported;
}

void write_imported_task(const ImportedTask& imported, const std::filesystem::path& directory) {
  if (std::filesystem::exists(directory / "definition.json")) {
    throw UserError(directory.string() + ": already holds a definition.json; choose another --out");
  }
  std::filesystem::create_directories(directory);
  write_file_atomic(directory / "definition.json", imported.definition);
  write_file_atomic(directory / "reference.py", imported.reference);
  write_file_atomic(directory / "baseline.cpp", imported.baseline);
  for (const auto& [source, copy] : imported.files) {
    std::filesystem::create_directories((directory / copy).parent_path());
    std::filesystem::copy_file(source, directory / copy,
                               std::filesystem::copy_options::overwrite_existing);
  }
  load_task(directory);
}

}  // namespace accelopt::task
