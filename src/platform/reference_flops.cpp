#include "platform/reference_flops.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"
#include "platform/checker.h"
#include "platform/cpu/inputs.h"
#include "task/expression.h"

namespace accelopt::platform {
namespace {

using Axes = std::map<std::string, int64_t>;

// "M=16 N=16": the axes `only` names, or all of them.
std::string axes_text(const Axes& axes, const std::set<std::string>* only = nullptr) {
  std::vector<std::string> words;
  for (const auto& [name, value] : axes) {
    if (only == nullptr || only->count(name)) words.push_back(fmt::format("{}={}", name, value));
  }
  return fmt::format("{}", fmt::join(words, " "));
}

// `base` with `doubled` twice as large, the axes constraints decide settled again; nullopt where a
// constraint then fails.
std::optional<Axes> varied(const task::Task& task, const Axes& base,
                           const std::set<std::string>& doubled,
                           const std::set<std::string>& decided) {
  std::map<std::string, double> values;
  for (const auto& [name, value] : base) {
    values[name] = static_cast<double>(value) * (doubled.count(name) ? 2 : 1);
  }
  task::settle_constraints(values, decided, task.constraints);
  for (const task::Constraint& constraint : task.constraints) {
    // One that reads inputs is checked on the inputs drawn for the shape.
    if (constraint.reads.empty() && !task::constraint_holds(constraint, values)) {
      return std::nullopt;
    }
  }
  Axes axes;
  for (const auto& [name, value] : values) axes[name] = static_cast<int64_t>(value);
  return axes;
}

// "2*M*N*K" for a coefficient and each axis's power; "0" for nothing.
std::string product_text(double coefficient, const std::map<std::string, int>& powers) {
  std::string text;
  for (const auto& [name, power] : powers) {
    if (power == 0) continue;
    text += (text.empty() ? "" : "*") + name + (power > 1 ? fmt::format("^{}", power) : "");
  }
  double whole = std::round(coefficient);
  std::string number = std::abs(coefficient - whole) <= 1e-9 * std::abs(coefficient)
                           ? fmt::format("{}", static_cast<int64_t>(whole))
                           : fmt::format("{:.6g}", coefficient);
  if (text.empty()) return number;
  return number == "1" ? text : number + "*" + text;
}

// One count's fit: each axis's power from the doublings, checked on the all-doubled shape.
struct Fit {
  std::optional<std::string> expression;
  std::string why_not;
};

Fit fit(const task::Task& task, const char* field, double at_base,
        const std::map<std::string, double>& when_doubled, double at_check, const Axes& base) {
  if (at_base == 0) {
    bool all_zero = at_check == 0;
    for (const auto& [axis, value] : when_doubled) all_zero = all_zero && value == 0;
    if (all_zero) return {"0", ""};
    return {std::nullopt, fmt::format("{} is 0 at the base shape and not at others", field)};
  }
  std::map<std::string, int> powers;
  double coefficient = at_base;
  int total = 0;
  for (const auto& [axis, value] : when_doubled) {
    double power = std::log2(value / at_base);
    int whole = static_cast<int>(std::lround(power));
    if (!(std::abs(power - whole) < 1e-9) || whole < 0 || whole > 4) {
      return {std::nullopt,
              fmt::format("doubling {} multiplied {} by {:.4g}, not a power of two: it is not a "
                          "product of powers of the axes",
                          axis, field, value / at_base)};
    }
    powers[axis] = whole;
    total += whole;
    coefficient /= std::pow(static_cast<double>(base.at(axis)), whole);
  }
  double predicted = at_base * std::pow(2.0, total);
  if (std::abs(predicted - at_check) > 1e-9 * predicted) {
    return {std::nullopt,
            fmt::format("{} with every axis doubled is {:.6g}, where a product of powers would be "
                        "{:.6g}",
                        field, at_check, predicted)};
  }
  // The const axes the coefficient holds, by name where it divides by their values, largest
  // first, until what is left is a small count (2 per multiply-add, 4 for attention's two
  // products): "2*K*M*N" rather than "234881024*M". The same number at every shape, as const axes
  // do not vary; which axes it names is a reading, not a measurement.
  std::vector<task::Axis> constants;
  for (const task::Axis& axis : task.axes) {
    if (axis.is_const && axis.value >= 2) constants.push_back(axis);
  }
  std::stable_sort(constants.begin(), constants.end(),
                   [](const task::Axis& a, const task::Axis& b) { return a.value > b.value; });
  for (const task::Axis& axis : constants) {
    if (coefficient <= 8) break;
    double divided = coefficient / static_cast<double>(axis.value);
    if (divided >= 1 && divided == std::floor(divided)) {
      coefficient = divided;
      powers[axis.name] = 1;
    }
  }
  return {product_text(coefficient, powers), ""};
}

// The var axes, those a constraint decides, and the others (free to vary).
struct AxisRoles {
  std::set<std::string> var_axes, decided, free_axes;
};

AxisRoles axis_roles(const task::Task& task) {
  AxisRoles roles;
  for (const task::Axis& axis : task.axes) {
    if (!axis.is_const) roles.var_axes.insert(axis.name);
  }
  for (const task::Constraint& constraint : task.constraints) {
    if (constraint.comparison == "==" && roles.var_axes.count(constraint.left) &&
        constraint.reads.empty()) {
      roles.decided.insert(constraint.left);
    }
  }
  for (const std::string& name : roles.var_axes) {
    if (!roles.decided.count(name)) roles.free_axes.insert(name);
  }
  return roles;
}

InferredFlops infer_at(const task::Task& task, const Axes& base, const FlopCounter& count) {
  auto [var_axes, decided, free_axes] = axis_roles(task);
  MeasuredFlops at_base = count(base);
  std::set<std::string> unknown(at_base.unknown.begin(), at_base.unknown.end());
  std::map<std::string, double> mm_doubled, vec_doubled;
  for (const std::string& axis : free_axes) {
    std::optional<Axes> shape = varied(task, base, {axis}, decided);
    if (!shape) {
      throw UserError(fmt::format(
          "the FLOP counts were not measured: with {} doubled the shape breaks a constraint",
          axis));
    }
    MeasuredFlops measured = count(*shape);
    mm_doubled[axis] = measured.mm_flops;
    vec_doubled[axis] = measured.vec_flops;
    unknown.insert(measured.unknown.begin(), measured.unknown.end());
  }
  std::optional<Axes> check_shape = varied(task, base, free_axes, decided);
  if (!check_shape) {
    throw UserError(
        "the FLOP counts were not measured: with every axis doubled the shape breaks a "
        "constraint");
  }
  MeasuredFlops at_check = count(*check_shape);

  InferredFlops inferred;
  std::string library = at_base.library == "torch" ? "PyTorch's operations" : "NumPy's operations";
  std::string where = fmt::format(
      "at {} and with {} doubled in turn", axes_text(base, &var_axes),
      free_axes.empty() ? std::string("no axis") : fmt::format("{}", fmt::join(free_axes, ", ")));
  for (const char* field : {"mm_flops", "vec_flops"}) {
    bool matrix = std::string(field) == "mm_flops";
    double base_count = matrix ? at_base.mm_flops : at_base.vec_flops;
    Fit fitted = fit(task, field, base_count, matrix ? mm_doubled : vec_doubled,
                     matrix ? at_check.mm_flops : at_check.vec_flops, base);
    if (fitted.expression) {
      (matrix ? inferred.mm_flops : inferred.vec_flops) = fitted.expression;
      inferred.notes.push_back(fmt::format(
          "roofline.{} = \"{}\": counted from reference.py's {} ({:.6g} {}), checked with every "
          "axis doubled; a person's expression in definition.json wins over it",
          field, *fitted.expression, library, base_count, where));
    } else {
      inferred.notes.push_back(fmt::format(
          "roofline.{}: not inferred ({:.6g} {}; {}): write it in definition.json as an "
          "expression over the axes (matrix work counts 2 per multiply-add), or the peak "
          "leaves it out",
          field, base_count, where, fitted.why_not));
    }
  }
  if (!unknown.empty()) {
    inferred.notes.push_back(fmt::format(
        "roofline: reference.py uses {}, which the FLOP counter does not know and counted as 0; "
        "add their work to the counts if it is arithmetic",
        fmt::join(unknown, ", ")));
  }
  return inferred;
}

}  // namespace

InferredFlops infer_flops(const task::Task& task, const Axes& base, const FlopCounter& count) {
  // A workload's shape can be large (a GEMM of M=8192): the counts are taken where each free axis
  // is at most kSmallAxis if the constraints and the reference allow, as the fit needs only shapes
  // where the counts scale as they do everywhere.
  constexpr int64_t kSmallAxis = 16;
  AxisRoles roles = axis_roles(task);
  Axes shrunk = base;
  for (const std::string& name : roles.free_axes) {
    shrunk[name] = std::min(shrunk[name], kSmallAxis);
  }
  std::optional<Axes> settled = varied(task, shrunk, {}, roles.decided);
  if (!settled || *settled == base) return infer_at(task, base, count);
  const Axes& small = *settled;
  std::string small_failure;
  try {
    return infer_at(task, small, count);
  } catch (const UserError& error) {
    small_failure = error.what();  // an assertion on its inputs, perhaps: the full shape may do
  }
  try {
    return infer_at(task, base, count);
  } catch (const UserError& error) {
    throw UserError(fmt::format("at {}: {}; at the workload's own shape: {}", axes_text(small),
                                small_failure, error.what()));
  }
}

FlopCounter python_reference_flops(const task::Task& task, PythonReferenceOptions options) {
  if (!task.python_reference) {
    throw UserError("task " + task.name +
                    ": FLOP counts are measured from a Python reference (reference.py); this "
                    "task's reference is C++");
  }
  return [&task, options](const Axes& axes) {
    task::Workload workload;
    workload.name = "flops";
    workload.axes = axes;
    ReferenceCase reference_case;
    reference_case.label = "the shape " + axes_text(axes);
    reference_case.inputs = cpu::generate_inputs(task, workload, 1);
    PythonReference reference(task, workload, options);
    Json counted = reference.count_flops(reference_case);
    MeasuredFlops measured;
    measured.mm_flops = counted.at("mm_flops").get<double>();
    measured.vec_flops = counted.at("vec_flops").get<double>();
    measured.library = counted.at("library").get<std::string>();
    measured.unknown = counted.at("unknown").get<std::vector<std::string>>();
    return measured;
  };
}

}  // namespace accelopt::platform
