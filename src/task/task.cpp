#include "task/task.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "task/baseline_stub.h"
#include "task/entry_point_limit.h"
#include "task/expression.h"
#include "task/safetensors.h"

namespace accelopt::task {
namespace {

// Collects the file name and the field path so every message reads "<file>: <field>: <why>".
class Validator {
 public:
  explicit Validator(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw UserError(origin_ + ": " + (field.empty() ? "" : field + ": ") + why);
  }

  const Json& require(const Json& object, const std::string& key, const std::string& path) const {
    if (!object.contains(key)) fail(path, "missing required field '" + key + "'");
    return object.at(key);
  }

  std::string string_field(const Json& object, const std::string& key, const std::string& path,
                           bool required, const std::string& fallback = "") const {
    if (!object.contains(key)) {
      if (required) fail(path, "missing required field '" + key + "'");
      return fallback;
    }
    const Json& value = object.at(key);
    if (!value.is_string()) fail(join(path, key), "must be a string, not " + type_of(value));
    return value.get<std::string>();
  }

  double number_field(const Json& object, const std::string& key, const std::string& path,
                      double fallback) const {
    if (!object.contains(key)) return fallback;
    const Json& value = object.at(key);
    if (!value.is_number()) fail(join(path, key), "must be a number, not " + type_of(value));
    return value.get<double>();
  }

  int64_t integer_field(const Json& object, const std::string& key, const std::string& path,
                        int64_t fallback, int64_t minimum) const {
    if (!object.contains(key)) return fallback;
    const Json& value = object.at(key);
    if (!value.is_number_integer())
      fail(join(path, key), "must be an integer, not " + type_of(value));
    int64_t number = value.get<int64_t>();
    if (number < minimum) fail(join(path, key), "must be at least " + std::to_string(minimum));
    return number;
  }

  void only_known_keys(const Json& object, const std::set<std::string>& known,
                       const std::string& path) const {
    for (const auto& [key, value] : object.items()) {
      if (known.count(key)) continue;
      std::string list;
      for (const std::string& name : known) list += (list.empty() ? "" : ", ") + name;
      fail(path, "unknown field '" + key + "' (known: " + list + ")");
    }
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  static std::string type_of(const Json& value) {
    if (value.is_null()) return "null";
    if (value.is_boolean()) return "a boolean";
    if (value.is_number()) return "a number";
    if (value.is_string()) return "a string";
    if (value.is_array()) return "an array";
    return "an object";
  }

 private:
  std::string origin_;
};

std::string fmt_number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

bool is_identifier(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Why whole-number bounds [low, high) cannot make an integer distribution; empty when they can.
std::string integer_bounds_problem(double low, double high) {
  if (low != std::floor(low) || high != std::floor(high) || !(low < high)) {
    return "an integer distribution needs whole numbers low < high (high excluded)";
  }
  if (std::fabs(low) > 0x1p24 || std::fabs(high) > 0x1p24) {
    return "an integer distribution's bounds must lie within ±2^24 = 16777216 (the harness holds "
           "values as float)";
  }
  return "";
}

// An integer bound or an offsets total: a number, or an axis expression (checked and evaluated on
// each workload by check_structured_inputs).
void number_or_expression(const Validator& check, const Json& json, const std::string& key,
                          const std::string& path, double& number, std::string& expression) {
  if (!json.contains(key)) return;
  const Json& value = json.at(key);
  if (value.is_string()) {
    expression = value.get<std::string>();
    try {
      expression_names(expression);
    } catch (const UserError& error) {
      check.fail(Validator::join(path, key), error.what());
    }
    return;
  }
  if (!value.is_number()) {
    check.fail(Validator::join(path, key),
               "must be a number or an axis expression such as \"num_pages\", not " +
                   Validator::type_of(value));
  }
  number = value.get<double>();
}

InputDistribution parse_distribution(const Validator& check, const Json& json,
                                     const std::string& path) {
  InputDistribution distribution;
  if (!json.is_object()) check.fail(path, "must be an object such as {\"kind\": \"normal\"}");
  check.only_known_keys(
      json, {"kind", "mean", "std", "low", "high", "value", "total", "min_step", "not_below"},
      path);
  std::string kind = check.string_field(json, "kind", path, true);
  if (kind == "normal") {
    distribution.kind = Distribution::kNormal;
  } else if (kind == "uniform") {
    distribution.kind = Distribution::kUniform;
  } else if (kind == "abs_normal") {
    distribution.kind = Distribution::kAbsNormal;
  } else if (kind == "constant") {
    distribution.kind = Distribution::kConstant;
  } else if (kind == "integer") {
    distribution.kind = Distribution::kInteger;
  } else if (kind == "offsets") {
    distribution.kind = Distribution::kOffsets;
  } else {
    check.fail(path + ".kind",
               "unknown distribution '" + kind +
                   "' (known: normal, uniform, abs_normal, constant, integer, offsets)");
  }
  for (const char* key : {"total", "min_step", "not_below"}) {
    if (json.contains(key) && distribution.kind != Distribution::kOffsets) {
      check.fail(Validator::join(path, key), "only an offsets distribution takes it");
    }
  }
  distribution.value = check.number_field(json, "value", path, 0.0);
  distribution.mean = check.number_field(json, "mean", path, 0.0);
  distribution.std = check.number_field(json, "std", path, 1.0);
  if (distribution.std < 0) check.fail(path + ".std", "must not be negative");
  if (distribution.kind == Distribution::kInteger) {
    if (!json.contains("low") || !json.contains("high")) {
      check.fail(path, "an integer distribution needs whole numbers low < high (high excluded)");
    }
    number_or_expression(check, json, "low", path, distribution.low, distribution.low_expression);
    number_or_expression(check, json, "high", path, distribution.high,
                         distribution.high_expression);
    // Bounds written as expressions are checked on each workload (check_structured_inputs).
    if (distribution.low_expression.empty() && distribution.high_expression.empty()) {
      std::string problem = integer_bounds_problem(distribution.low, distribution.high);
      if (!problem.empty()) check.fail(path, problem);
    }
    return distribution;
  }
  distribution.low = check.number_field(json, "low", path, -1.0);
  distribution.high = check.number_field(json, "high", path, 1.0);
  if (distribution.low > distribution.high) check.fail(path, "low must not exceed high");
  if (distribution.kind == Distribution::kOffsets) {
    if (!json.contains("total")) {
      check.fail(path,
                 "an offsets distribution needs its \"total\" (the last element: a number or an "
                 "axis expression such as \"num_kv_indices\")");
    }
    number_or_expression(check, json, "total", path, distribution.total,
                         distribution.total_expression);
    distribution.min_step = check.integer_field(json, "min_step", path, 0, 0);
    distribution.not_below = check.string_field(json, "not_below", path, false);
  }
  return distribution;
}

ToleranceRule parse_tolerance_rule(const Validator& check, const Json& json,
                                   const std::string& path) {
  ToleranceRule rule;
  auto bounded = [&](const char* key, double low, double high) -> std::optional<double> {
    if (!json.contains(key)) return std::nullopt;
    double value = check.number_field(json, key, path, 0.0);
    if (!(value >= low && value < high)) {
      check.fail(Validator::join(path, key),
                 "must be in [" + fmt_number(low) + ", " + fmt_number(high) + ")");
    }
    return value;
  };
  rule.rel_l2 = bounded("rel_l2", 0, 1);
  if (rule.rel_l2 && *rule.rel_l2 == 0) check.fail(Validator::join(path, "rel_l2"), "must be > 0");
  rule.atol = bounded("atol", 0, 1e30);
  rule.rtol = bounded("rtol", 0, 1);
  rule.atol_rms = bounded("atol_rms", 0, 1);
  return rule;
}

// {"rel_l2": .., "atol": .., "rtol": .., "atol_rms": .., "outputs": {"name": {...}}}
ToleranceSpec parse_tolerance(const Validator& check, const Json& json, const std::string& path,
                              const std::vector<TensorSpec>& outputs) {
  if (!json.is_object()) {
    check.fail(path,
               "must be an object such as {\"rel_l2\": 2e-5, \"atol\": 1e-5, \"rtol\": 1e-3}");
  }
  check.only_known_keys(json, {"rel_l2", "atol", "rtol", "atol_rms", "outputs"}, path);
  ToleranceSpec spec;
  spec.all = parse_tolerance_rule(check, json, path);
  if (json.contains("outputs")) {
    const Json& per_output = json.at("outputs");
    std::string where = path + ".outputs";
    if (!per_output.is_object()) check.fail(where, "must be an object keyed by output name");
    for (const auto& [name, body] : per_output.items()) {
      bool known = std::any_of(outputs.begin(), outputs.end(),
                               [&](const TensorSpec& output) { return output.name == name; });
      if (!known) check.fail(where, "unknown output '" + name + "'");
      if (!body.is_object()) check.fail(where + "." + name, "must be an object");
      check.only_known_keys(body, {"rel_l2", "atol", "rtol", "atol_rms"}, where + "." + name);
      spec.outputs[name] = parse_tolerance_rule(check, body, where + "." + name);
    }
  }
  return spec;
}

// {"name": {"description": .., "seeds": n, "inputs": {"x": distribution}, "tolerance": {...}}}
std::vector<InputSet> parse_input_sets(const Validator& check, const Json& json,
                                       const std::vector<TensorSpec>& inputs,
                                       const std::vector<TensorSpec>& outputs) {
  if (!json.is_object()) check.fail("input_sets", "must be an object keyed by set name");
  std::vector<InputSet> sets;
  for (const auto& [name, body] : json.items()) {
    std::string where = "input_sets." + name;
    if (!is_identifier(name)) check.fail(where, "a set name must be a C identifier");
    if (!body.is_object()) check.fail(where, "must be an object with \"inputs\"");
    check.only_known_keys(body, {"description", "seeds", "inputs", "tolerance"}, where);
    InputSet set;
    set.name = name;
    set.description = check.string_field(body, "description", where, false);
    set.seeds = static_cast<int>(check.integer_field(body, "seeds", where, 1, 1));
    const Json& distributions = check.require(body, "inputs", where);
    if (!distributions.is_object() || distributions.empty()) {
      check.fail(where + ".inputs", "must be a non-empty object of distributions by input name");
    }
    for (const auto& [input, distribution] : distributions.items()) {
      bool known = std::any_of(inputs.begin(), inputs.end(),
                               [&](const TensorSpec& spec) { return spec.name == input; });
      if (!known) check.fail(where + ".inputs", "unknown input '" + input + "'");
      if (std::any_of(inputs.begin(), inputs.end(), [&](const TensorSpec& spec) {
            return spec.name == input && spec.constant;
          })) {
        check.fail(where + ".inputs." + input,
                   "input '" + input +
                       "' is constant (drawn once per evaluation from its own distribution): "
                       "an input set cannot draw it otherwise");
      }
      set.inputs[input] = parse_distribution(check, distribution, where + ".inputs." + input);
    }
    if (body.contains("tolerance")) {
      set.tolerance = parse_tolerance(check, body.at("tolerance"), where + ".tolerance", outputs);
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

std::vector<TensorSpec> parse_tensors(const Validator& check, const Json& json,
                                      const std::string& path, const std::set<std::string>& axes,
                                      bool inputs) {
  if (!json.is_object() || json.empty()) {
    check.fail(path, "must be a non-empty object of tensors keyed by name");
  }
  std::vector<TensorSpec> tensors;
  for (const auto& [name, body] : json.items()) {
    std::string where = path + "." + name;
    if (!is_identifier(name)) check.fail(where, "a tensor name must be a C identifier");
    if (!body.is_object()) check.fail(where, "must be an object with dtype and shape");
    std::set<std::string> known = {"dtype", "shape", "description"};
    if (inputs) known.insert({"distribution", "constant"});
    check.only_known_keys(body, known, where);
    TensorSpec tensor;
    tensor.name = name;
    std::string dtype = check.string_field(body, "dtype", where, true);
    auto parsed = parse_dtype(dtype);
    if (!parsed) {
      // FlashInfer-Bench's other FP8 and FP4 names are known, just not run: say so rather than
      // "unknown".
      bool narrow_float = dtype.starts_with("float8") || dtype.starts_with("float4");
      check.fail(where + ".dtype",
                 "unknown dtype '" + dtype + "' (known: float32, float16, bfloat16, " +
                     "float8_e4m3fn, int8, int32, float64)" +
                     (narrow_float ? "; of the FP8 and FP4 formats only float8_e4m3fn is run so "
                                     "far, CPU or CUDA"
                                   : ""));
    }
    tensor.dtype = *parsed;
    const Json& shape = check.require(body, "shape", where);
    if (!shape.is_array()) check.fail(where + ".shape", "must be an array of axis names");
    for (const Json& axis : shape) {
      if (!axis.is_string()) check.fail(where + ".shape", "must hold axis names (strings)");
      std::string axis_name = axis.get<std::string>();
      if (!axes.count(axis_name)) check.fail(where + ".shape", "unknown axis '" + axis_name + "'");
      tensor.shape.push_back(axis_name);
    }
    tensor.description = check.string_field(body, "description", where, false);
    if (body.contains("distribution")) {
      tensor.distribution =
          parse_distribution(check, body.at("distribution"), where + ".distribution");
    }
    if (body.contains("constant")) {
      if (!body["constant"].is_boolean()) check.fail(where + ".constant", "must be true or false");
      tensor.constant = body["constant"].get<bool>();
    }
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

std::map<std::string, double> axis_values(const Workload& workload) {
  std::map<std::string, double> names;
  for (const auto& [axis, value] : workload.axes) names[axis] = static_cast<double>(value);
  return names;
}

// An expression of a distribution (an integer bound, an offsets total) names only axes.
void check_expression_axes(const Validator& check, const std::string& expression,
                           const std::set<std::string>& axes, const std::string& field,
                           bool reads_elements = false) {
  if (expression.empty()) return;
  for (const std::string& name : expression_names(expression)) {
    if (!axes.count(name)) {
      check.fail(field, "unknown axis '" + name + "' in \"" + expression + "\"");
    }
  }
  if (!reads_elements && !expression_elements(expression).empty()) {
    check.fail(field, "\"" + expression + "\" reads an input's element: only constraints may");
  }
}

// Bounds that are expressions hold on every workload: whole, within ±2^24, low < high.
void check_integer_on(const Validator& check, const InputDistribution& distribution,
                      const Workload& workload, const std::string& path) {
  if (distribution.low_expression.empty() && distribution.high_expression.empty()) return;
  InputDistribution resolved = for_workload(distribution, workload);
  std::string problem = integer_bounds_problem(resolved.low, resolved.high);
  if (problem.empty()) return;
  auto bound = [](const std::string& expression, double value) {
    return expression.empty() ? fmt::format("{:g}", value)
                              : fmt::format("\"{}\" = {:g}", expression, value);
  };
  check.fail(path, fmt::format("on workload '{}', low {} and high {}: {}", workload.name,
                               bound(distribution.low_expression, resolved.low),
                               bound(distribution.high_expression, resolved.high), problem));
}

const TensorSpec* find_input(const Task& task, const std::string& name) {
  for (const TensorSpec& input : task.inputs) {
    if (input.name == name) return &input;
  }
  return nullptr;
}

// An offsets input (task.h): a 1-D int32 tensor whose total can be reached on every workload with
// steps of at least min_step and of at least its not_below input's steps.
void check_offsets(const Validator& check, const Task& task, const TensorSpec& input,
                   const std::string& path) {
  const InputDistribution& own = input.distribution;
  if (input.dtype != DType::kInt32 || input.shape.size() != 1) {
    check.fail(path, "an offsets distribution is for a 1-D int32 tensor (an indptr)");
  }
  const TensorSpec* below = nullptr;
  if (!own.not_below.empty()) {
    below = find_input(task, own.not_below);
    if (below == nullptr || below == &input || below->distribution.kind != Distribution::kOffsets) {
      check.fail(path + ".not_below",
                 "'" + own.not_below + "' is not another input with an offsets distribution");
    }
    if (input.constant && !below->constant) {
      check.fail(path + ".not_below", "'" + own.not_below +
                                          "' is drawn per case: a constant input's steps "
                                          "can be bounded only by another constant input");
    }
    // A chain of not_below must end: each is drawn after the one it names.
    const TensorSpec* step = below;
    for (size_t hops = 0; step != nullptr && !step->distribution.not_below.empty(); ++hops) {
      if (hops > task.inputs.size())
        check.fail(path + ".not_below", "not_below goes round in a circle");
      step = find_input(task, step->distribution.not_below);
    }
  }
  for (const Workload& workload : task.workloads) {
    int64_t length = task.element_count(input, workload);
    double total = for_workload(own, workload).total;
    double steps = static_cast<double>(length - 1);
    std::string on =
        fmt::format("on workload '{}' ({} elements, total {}{:g})", workload.name, length,
                    own.total_expression.empty() ? "" : own.total_expression + " = ", total);
    if (total != std::floor(total) || total < 0 || total > 0x1p24) {
      check.fail(path, on + ": the total must be a whole number in [0, 2^24 = 16777216]");
    }
    if (length == 1 && total != 0) {
      check.fail(path, on + ": a tensor of one element holds 0 alone, so its total must be 0");
    }
    if (total < static_cast<double>(own.min_step) * steps) {
      check.fail(path, fmt::format("{}: {} steps of at least min_step {} cannot end at {:g}", on,
                                   length - 1, own.min_step, total));
    }
    if (below == nullptr) continue;
    if (task.element_count(*below, workload) != length) {
      check.fail(path + ".not_below",
                 fmt::format("{}: '{}' has {} elements; they must have the same length", on,
                             below->name, task.element_count(*below, workload)));
    }
    // Its steps are at least its own min_step, so this much always suffices.
    double below_total = for_workload(below->distribution, workload).total;
    double extra =
        static_cast<double>(std::max<int64_t>(0, own.min_step - below->distribution.min_step)) *
        steps;
    if (total < below_total + extra) {
      check.fail(path, fmt::format("{}: below '{}''s total {:g}{}: each step must be at least "
                                   "'{}''s step",
                                   on, below->name, below_total,
                                   extra > 0 ? fmt::format(" plus {:g} for min_step", extra) : "",
                                   below->name));
    }
  }
}

// What needs the workloads: distributions whose bounds or totals are axis expressions, and offsets
// inputs. An input set may not give or replace an offsets distribution: the tensor is structured
// as a whole, and a set's cases mix values element by element.
void check_structured_inputs(const Validator& check, const Task& task,
                             const std::set<std::string>& axes) {
  for (const TensorSpec& input : task.inputs) {
    std::string path = "inputs." + input.name + ".distribution";
    const InputDistribution& own = input.distribution;
    check_expression_axes(check, own.low_expression, axes, path + ".low");
    check_expression_axes(check, own.high_expression, axes, path + ".high");
    check_expression_axes(check, own.total_expression, axes, path + ".total");
  }
  for (const TensorSpec& input : task.inputs) {
    std::string path = "inputs." + input.name + ".distribution";
    if (input.distribution.kind == Distribution::kOffsets) check_offsets(check, task, input, path);
    for (const Workload& workload : task.workloads) {
      check_integer_on(check, input.distribution, workload, path);
    }
  }
  for (const InputSet& set : task.input_sets) {
    for (const auto& [name, distribution] : set.inputs) {
      std::string path = "input_sets." + set.name + ".inputs." + name;
      if (distribution.kind == Distribution::kOffsets ||
          find_input(task, name)->distribution.kind == Distribution::kOffsets) {
        check.fail(path, "an offsets input keeps the task's own distribution in every input set");
      }
      check_expression_axes(check, distribution.low_expression, axes, path + ".low");
      check_expression_axes(check, distribution.high_expression, axes, path + ".high");
      for (const Workload& workload : task.workloads) {
        check_integer_on(check, distribution, workload, path);
      }
    }
  }
}

}  // namespace

InputDistribution for_workload(const InputDistribution& distribution, const Workload& workload) {
  InputDistribution resolved = distribution;
  if (distribution.low_expression.empty() && distribution.high_expression.empty() &&
      distribution.total_expression.empty()) {
    return resolved;
  }
  std::map<std::string, double> names = axis_values(workload);
  if (!distribution.low_expression.empty())
    resolved.low = evaluate_expression(distribution.low_expression, names);
  if (!distribution.high_expression.empty())
    resolved.high = evaluate_expression(distribution.high_expression, names);
  if (!distribution.total_expression.empty())
    resolved.total = evaluate_expression(distribution.total_expression, names);
  return resolved;
}

const Workload& Task::workload(const std::string& workload_name) const {
  for (const Workload& candidate : workloads) {
    if (candidate.name == workload_name) return candidate;
  }
  std::string known;
  for (const Workload& candidate : workloads) known += (known.empty() ? "" : ", ") + candidate.name;
  throw UserError("task " + name + " has no workload '" + workload_name + "' (known: " + known +
                  ")");
}

const Workload& Task::default_workload() const {
  for (const Workload& candidate : workloads) {
    if (candidate.is_default) return candidate;
  }
  return workloads.front();
}

const Workload& Task::workload_or_default(const std::string& workload_name) const {
  return workload_name.empty() ? default_workload() : workload(workload_name);
}

Tolerance default_tolerance(DType dtype) {
  switch (dtype) {
    case DType::kBFloat16:
    case DType::kFloat16:
    case DType::kFloat8E4M3:
      return {1e-2, 1e-2, 1e-2};
    case DType::kInt8:
    case DType::kInt32:
      return {1e-12, 0, 0};
    case DType::kFloat32:
    case DType::kFloat64:
      break;
  }
  return {};
}

Tolerance Task::tolerance(const std::string& output, const InputSet* set) const {
  Tolerance tolerance;
  for (const TensorSpec& spec : outputs) {
    if (spec.name == output) tolerance = default_tolerance(spec.dtype);
  }
  auto apply = [&](const ToleranceRule& rule) {
    tolerance.rel_l2 = rule.rel_l2.value_or(tolerance.rel_l2);
    tolerance.atol = rule.atol.value_or(tolerance.atol);
    tolerance.rtol = rule.rtol.value_or(tolerance.rtol);
    tolerance.atol_rms = rule.atol_rms.value_or(tolerance.atol_rms);
  };
  auto apply_spec = [&](const ToleranceSpec& spec) {
    apply(spec.all);
    if (auto found = spec.outputs.find(output); found != spec.outputs.end()) apply(found->second);
  };
  apply_spec(tolerance_spec);
  if (set != nullptr) apply_spec(set->tolerance);
  return tolerance;
}

std::string distribution_text(const InputDistribution& distribution) {
  switch (distribution.kind) {
    case Distribution::kConstant:
      return fmt::format("constant {:g}", distribution.value);
    case Distribution::kUniform:
      return fmt::format("uniform in [{:g}, {:g}]", distribution.low, distribution.high);
    case Distribution::kNormal:
      return fmt::format("normal(mean {:g}, std {:g})", distribution.mean, distribution.std);
    case Distribution::kAbsNormal:
      return fmt::format("|normal(mean {:g}, std {:g})|", distribution.mean, distribution.std);
    case Distribution::kInteger: {
      auto bound = [](double number, const std::string& expression) {
        return expression.empty() ? fmt::format("{:g}", number) : expression;
      };
      return fmt::format("integers in [{}, {})",
                         bound(distribution.low, distribution.low_expression),
                         bound(distribution.high, distribution.high_expression));
    }
    case Distribution::kOffsets: {
      std::string text = fmt::format("offsets: int32, non-decreasing from 0 to {}",
                                     distribution.total_expression.empty()
                                         ? fmt::format("{:g}", distribution.total)
                                         : distribution.total_expression);
      if (distribution.min_step > 0)
        text += fmt::format(", steps of at least {}", distribution.min_step);
      if (!distribution.not_below.empty())
        text += ", each step at least " + distribution.not_below + "'s";
      return text;
    }
  }
  return "unknown";
}

std::string tolerance_text(const Tolerance& tolerance) {
  std::string scaled = tolerance.atol_rms > 0
                           ? fmt::format(" + {:g}·rms(reference) (the output's root mean square)",
                                         tolerance.atol_rms)
                           : "";
  return fmt::format(
      "relative L2 error below {:g}, and every element within {:g} + {:g}·|reference|{}",
      tolerance.rel_l2, tolerance.atol, tolerance.rtol, scaled);
}

const InputSet& Task::input_set(const std::string& set_name) const {
  for (const InputSet& set : input_sets) {
    if (set.name == set_name) return set;
  }
  std::string known;
  for (const InputSet& set : input_sets) known += (known.empty() ? "" : ", ") + set.name;
  throw UserError("task " + name + " has no input set '" + set_name +
                  "' (known: " + (known.empty() ? "none" : known) + ")");
}

int64_t Task::element_count(const TensorSpec& tensor, const Workload& chosen) const {
  int64_t count = 1;
  for (const std::string& axis : tensor.shape) count *= chosen.axes.at(axis);
  return count;
}

RooflineCounts Task::roofline_counts(const Workload& chosen) const {
  std::map<std::string, double> names = axis_values(chosen);
  return {evaluate_expression(mm_flops_expression, names),
          evaluate_expression(vec_flops_expression, names),
          evaluate_expression(bytes_expression, names)};
}

Task parse_task_definition(const std::string& json_text, const std::filesystem::path& directory,
                           const std::string& origin) {
  Validator check(origin);
  Json json;
  try {
    json = Json::parse(json_text);
  } catch (const Json::parse_error& error) {
    check.fail("", std::string("not valid JSON: ") + error.what());
  }
  if (!json.is_object()) check.fail("", "must hold a JSON object");
  check.only_known_keys(json,
                        {"name", "op_type", "tags", "description", "axes", "inputs", "outputs",
                         "workloads", "tolerance", "input_sets", "threads", "seeds", "entry_point",
                         "compile_flags", "roofline", "constraints"},
                        "");
  Task task;
  task.directory = directory;
  task.definition = json;
  task.name = check.string_field(json, "name", "", true);
  if (!is_identifier(task.name)) check.fail("name", "must be a C identifier such as \"matmul\"");
  task.op_type = check.string_field(json, "op_type", "", true);
  task.description = check.string_field(json, "description", "", false);
  if (json.contains("tags")) {
    if (!json["tags"].is_array()) check.fail("tags", "must be an array of strings");
    for (const Json& tag : json["tags"]) {
      if (!tag.is_string()) check.fail("tags", "must be an array of strings");
      task.tags.push_back(tag.get<std::string>());
    }
  }

  const Json& axes = check.require(json, "axes", "");
  if (!axes.is_object() || axes.empty())
    check.fail("axes", "must be a non-empty object keyed by axis name");
  std::set<std::string> axis_names;
  for (const auto& [name, body] : axes.items()) {
    std::string where = "axes." + name;
    if (!is_identifier(name)) check.fail(where, "an axis name must be a C identifier");
    if (!body.is_object()) check.fail(where, "must be an object such as {\"type\": \"var\"}");
    check.only_known_keys(body, {"type", "value", "description"}, where);
    Axis axis;
    axis.name = name;
    std::string type = check.string_field(body, "type", where, true);
    if (type == "const") {
      axis.is_const = true;
      if (!body.contains("value")) check.fail(where, "a const axis needs a value");
      axis.value = check.integer_field(body, "value", where, 0, 1);
    } else if (type != "var") {
      check.fail(where + ".type", "must be \"const\" or \"var\", not \"" + type + "\"");
    } else if (body.contains("value")) {
      check.fail(where + ".value", "a var axis takes its value from each workload");
    }
    axis.description = check.string_field(body, "description", where, false);
    axis_names.insert(name);
    task.axes.push_back(axis);
  }

  task.inputs = parse_tensors(check, check.require(json, "inputs", ""), "inputs", axis_names, true);
  task.outputs =
      parse_tensors(check, check.require(json, "outputs", ""), "outputs", axis_names, false);
  if (task.inputs.size() + task.outputs.size() > kMostTensors) {
    check.fail("inputs", std::to_string(task.inputs.size() + task.outputs.size()) +
                             " tensors in all; an entry point takes at most " +
                             std::to_string(kMostTensors));
  }
  std::set<std::string> tensor_names;
  for (const auto* list : {&task.inputs, &task.outputs}) {
    for (const TensorSpec& tensor : *list) {
      if (!tensor_names.insert(tensor.name).second) {
        check.fail("outputs." + tensor.name, "the name is used by an input too");
      }
      if (axis_names.count(tensor.name)) {
        check.fail(tensor.name, "a tensor may not share its name with an axis");
      }
    }
  }

  const Json& workloads = check.require(json, "workloads", "");
  if (!workloads.is_object() || workloads.empty()) {
    check.fail("workloads", "must be a non-empty object keyed by workload name");
  }
  int defaults = 0;
  for (const auto& [name, body] : workloads.items()) {
    std::string where = "workloads." + name;
    if (!body.is_object()) check.fail(where, "must be an object with \"axes\"");
    check.only_known_keys(body, {"axes", "default", "description", "inputs"}, where);
    Workload workload;
    workload.name = name;
    if (body.contains("default")) {
      if (!body["default"].is_boolean()) check.fail(where + ".default", "must be true or false");
      workload.is_default = body["default"].get<bool>();
      defaults += workload.is_default ? 1 : 0;
    }
    const Json& values = body.contains("axes") ? body["axes"] : Json::object();
    if (!values.is_object()) check.fail(where + ".axes", "must be an object of axis values");
    for (const auto& [axis, value] : values.items()) {
      if (!axis_names.count(axis)) check.fail(where + ".axes", "unknown axis '" + axis + "'");
      if (!value.is_number_integer() || value.get<int64_t>() < 1) {
        check.fail(where + ".axes." + axis, "must be a positive integer");
      }
    }
    for (const Axis& axis : task.axes) {
      if (axis.is_const) {
        if (values.contains(axis.name) && values[axis.name].get<int64_t>() != axis.value) {
          check.fail(where + ".axes." + axis.name,
                     "axis is const " + std::to_string(axis.value) + " in the definition");
        }
        workload.axes[axis.name] = axis.value;
      } else {
        if (!values.contains(axis.name)) {
          check.fail(where + ".axes", "missing a value for var axis '" + axis.name + "'");
        }
        workload.axes[axis.name] = values[axis.name].get<int64_t>();
      }
    }
    // {"w": {"safetensors": "tensors/w1.safetensors", "key": "weight"}}: checked against the
    // file by load_task.
    if (body.contains("inputs")) {
      const Json& inputs = body["inputs"];
      if (!inputs.is_object()) check.fail(where + ".inputs", "must be an object by input name");
      for (const auto& [input, source] : inputs.items()) {
        if (find_input(task, input) == nullptr) {
          check.fail(where + ".inputs", "unknown input '" + input + "'");
        }
        std::string at = where + ".inputs." + input;
        if (!source.is_object()) check.fail(at, "must be {\"safetensors\": FILE, \"key\": NAME}");
        check.only_known_keys(source, {"safetensors", "key"}, at);
        FileInput file;
        file.file = check.string_field(source, "safetensors", at, true);
        file.key = check.string_field(source, "key", at, false, input);
        if (file.file.is_relative()) file.file = directory / file.file;
        workload.file_inputs[input] = file;
      }
    }
    task.workloads.push_back(std::move(workload));
  }
  if (defaults > 1) check.fail("workloads", "only one workload may be marked default");
  if (defaults == 0) task.workloads.front().is_default = true;

  if (json.contains("constraints")) {
    if (!json["constraints"].is_array()) check.fail("constraints", "must be an array of strings");
    for (const Json& text : json["constraints"]) {
      if (!text.is_string()) check.fail("constraints", "must be an array of strings");
      Constraint constraint;
      try {
        constraint = parse_constraint(text.get<std::string>());
      } catch (const UserError& error) {
        check.fail("constraints", error.what());
      }
      for (const std::string& side : {constraint.left, constraint.right}) {
        check_expression_axes(check, side, axis_names, "constraints", true);
      }
      for (const ElementRead& read : constraint.reads) {
        const TensorSpec* input = find_input(task, read.tensor);
        if (input == nullptr) {
          check.fail("constraints", fmt::format("\"{}\" reads {}, which is not an input",
                                                constraint.text, element_name(read)));
        }
        for (const Workload& workload : task.workloads) {
          int64_t count = task.element_count(*input, workload);
          if (read.index >= count || read.index < -count) {
            check.fail("workloads." + workload.name,
                       fmt::format("the constraint \"{}\" reads {}, past the end of its {} "
                                   "elements",
                                   constraint.text, element_name(read), count));
          }
        }
      }
      // One that reads inputs is checked on every case drawn (cpu/inputs.h: generate_inputs).
      for (const Workload& workload : task.workloads) {
        if (!constraint.reads.empty()) break;
        double left = 0, right = 0;
        if (!constraint_holds(constraint, axis_values(workload), &left, &right)) {
          check.fail("workloads." + workload.name,
                     fmt::format("breaks the constraint \"{}\" ({} is {}, {} is {})",
                                 constraint.text, constraint.left, left, constraint.right, right));
        }
      }
      task.constraints.push_back(std::move(constraint));
    }
  }

  if (json.contains("tolerance")) {
    task.tolerance_spec = parse_tolerance(check, json["tolerance"], "tolerance", task.outputs);
  }
  // A narrow first output starts from its dtype's rel_l2 (default_tolerance).
  task.rel_l2_tolerance = task.tolerance_spec.all.rel_l2.value_or(
      task.outputs.empty() ? task.rel_l2_tolerance
                           : default_tolerance(task.outputs.front().dtype).rel_l2);
  if (json.contains("input_sets")) {
    task.input_sets = parse_input_sets(check, json["input_sets"], task.inputs, task.outputs);
  }
  check_structured_inputs(check, task, axis_names);
  task.threads = static_cast<int>(check.integer_field(json, "threads", "", 1, 1));
  // NKIBench checks 5 seeds; fewer lets a kernel that is right by luck through.
  task.seeds = static_cast<int>(check.integer_field(json, "seeds", "", 5, 5));
  task.entry_point = check.string_field(json, "entry_point", "", false, "kernel");
  if (!is_identifier(task.entry_point)) check.fail("entry_point", "must be a C identifier");
  if (json.contains("compile_flags")) {
    if (!json["compile_flags"].is_array())
      check.fail("compile_flags", "must be an array of strings");
    for (const Json& flag : json["compile_flags"]) {
      if (!flag.is_string()) check.fail("compile_flags", "must be an array of strings");
      task.compile_flags.push_back(flag.get<std::string>());
    }
  }

  const Json& roofline = check.require(json, "roofline", "");
  if (!roofline.is_object())
    check.fail("roofline", "must be an object of mm_flops, vec_flops, bytes");
  check.only_known_keys(roofline, {"mm_flops", "vec_flops", "bytes"}, "roofline");
  task.mm_flops_expression = check.string_field(roofline, "mm_flops", "roofline", false, "0");
  task.vec_flops_expression = check.string_field(roofline, "vec_flops", "roofline", false, "0");
  task.bytes_expression = check.string_field(roofline, "bytes", "roofline", true);
  for (const auto& [field, expression] :
       {std::pair<std::string, std::string>{"mm_flops", task.mm_flops_expression},
        {"vec_flops", task.vec_flops_expression},
        {"bytes", task.bytes_expression}}) {
    std::set<std::string> used;
    try {
      used = expression_names(expression);
    } catch (const UserError& error) {
      check.fail("roofline." + field, error.what());
    }
    for (const std::string& name : used) {
      if (!axis_names.count(name)) {
        check.fail("roofline." + field, "unknown name '" + name + "' in \"" + expression + "\"");
      }
    }
    if (!expression_elements(expression).empty()) {
      check.fail("roofline." + field,
                 "\"" + expression + "\" reads an input's element: only constraints may");
    }
  }
  return task;
}

std::vector<std::string> task_names_in(const std::filesystem::path& suite) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(suite)) {
    if (std::filesystem::exists(entry.path() / "definition.json")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Task load_task(const std::filesystem::path& directory, const std::string& kernel_extension) {
  std::filesystem::path definition = directory / "definition.json";
  if (!std::filesystem::is_directory(directory)) {
    throw UserError(directory.string() + ": not a task directory (it does not exist)");
  }
  if (!std::filesystem::exists(definition)) {
    throw UserError(definition.string() +
                    ": missing (a task directory holds definition.json, "
                    "reference.cpp and baseline.cpp)");
  }
  Task task = parse_task_definition(read_file(definition), directory, definition.string());
  task.kernel_extension = kernel_extension;
  task.python_reference = !std::filesystem::exists(task.reference_path()) &&
                          std::filesystem::exists(directory / "reference.py");
  if (!std::filesystem::exists(task.reference_path())) {
    throw UserError(task.reference_path().string() +
                    ": missing (every task needs a trusted reference.cpp or reference.py)");
  }
  if (!std::filesystem::exists(task.baseline_path())) {
    throw UserError(task.baseline_path().string() + ": missing (every task needs a baseline" +
                    kernel_extension +
                    " for this platform): write one, or a file holding the line `" +
                    std::string(kBaselineStubMarker) +
                    "` to have `accelopt optimize` with a model write a naive one "
                    "(docs/task-format.md, \"A task without a baseline\")");
  }
  for (const Workload& workload : task.workloads) {
    for (const auto& [input, source] : workload.file_inputs) {
      const TensorSpec& spec = *std::find_if(task.inputs.begin(), task.inputs.end(),
                                             [&](const TensorSpec& t) { return t.name == input; });
      std::string where =
          definition.string() + ": workloads." + workload.name + ".inputs." + input + ": ";
      SafetensorsEntry entry;
      try {
        entry = safetensors_entry(source.file, source.key);
      } catch (const UserError& error) {
        throw UserError(where + error.what());
      }
      std::vector<int64_t> shape;
      for (const std::string& axis : spec.shape) shape.push_back(workload.axes.at(axis));
      if (entry.dtype != spec.dtype || entry.shape != shape) {
        throw UserError(fmt::format(
            "{}tensor '{}' of {} is {} {}; the input is {} {} at this workload", where, source.key,
            source.file.string(), dtype_name(entry.dtype), fmt::join(entry.shape, "x"),
            dtype_name(spec.dtype), fmt::join(shape, "x")));
      }
    }
  }
  return task;
}

}  // namespace accelopt::task
