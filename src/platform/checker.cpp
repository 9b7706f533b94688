#include "platform/checker.h"

#include <fmt/format.h>

#include <cmath>

#include "common/error.h"

namespace accelopt::platform {

std::vector<task::TensorValues> encode_inputs(const task::Task& task,
                                              const std::vector<std::vector<float>>& values) {
  if (values.size() != task.inputs.size()) {
    throw InternalError("encode_inputs: " + std::to_string(values.size()) + " tensors for " +
                        std::to_string(task.inputs.size()) + " inputs of " + task.name);
  }
  std::vector<task::TensorValues> tensors;
  for (size_t i = 0; i < values.size(); ++i) {
    tensors.push_back(task::TensorValues::encode(task.inputs[i].dtype, values[i]));
  }
  return tensors;
}

OutputCheck check_output(const std::string& name, const float* output, const float* reference,
                         size_t count, const task::Tolerance& tolerance) {
  OutputCheck check;
  double error_squares = 0, reference_squares = 0;
  size_t first_non_finite = count, worst = count;
  double worst_excess = 0;  // how many times its allowance the worst element is off
  for (size_t i = 0; i < count; ++i) {
    double got = output[i], want = reference[i];
    if (!std::isfinite(got) || !std::isfinite(want)) {
      bool same = (std::isnan(got) && std::isnan(want)) || (std::isinf(got) && got == want);
      if (!same && check.non_finite_mismatches++ == 0) first_non_finite = i;
      continue;
    }
    double difference = std::fabs(got - want);
    error_squares += difference * difference;
    reference_squares += want * want;
    check.max_abs_error = std::max(check.max_abs_error, difference);
    check.max_rel_error =
        std::max(check.max_rel_error, difference / std::max(std::fabs(want), 1e-30));
    double allowed = tolerance.atol + tolerance.rtol * std::fabs(want);
    if (difference > allowed) {
      ++check.elements_outside;
      double excess = difference / std::max(allowed, 1e-300);
      if (excess > worst_excess) worst_excess = excess, worst = i;
    }
  }
  double reference_norm = std::sqrt(reference_squares);
  double error_norm = std::sqrt(error_squares);
  check.rel_l2_error = reference_norm > 0 ? error_norm / reference_norm : error_norm;
  if (check.non_finite_mismatches > 0) {
    size_t i = first_non_finite;
    check.ok = false;
    check.rel_l2_error = INFINITY;
    check.message = fmt::format(
        "output '{}' has {} non-finite value(s) where the reference has none or another (first "
        "at index {}: {}, expected {}){}",
        name, check.non_finite_mismatches, i, output[i], reference[i],
        std::isnan(output[i]) && std::isfinite(reference[i])
            ? "; outputs hold NaN before each call, so some were never written"
            : "");
  } else if (!(check.rel_l2_error < tolerance.rel_l2)) {
    check.ok = false;
    check.message = fmt::format(
        "output '{}' is wrong: relative L2 error {:.3g} exceeds the tolerance {:.3g} (max abs "
        "error {:.3g})",
        name, check.rel_l2_error, tolerance.rel_l2, check.max_abs_error);
  } else if (check.elements_outside > 0) {
    check.ok = false;
    check.message = fmt::format(
        "output '{}' is wrong at {} of {} elements: |out - ref| exceeds atol {:.3g} + rtol {:.3g} "
        "* |ref| (worst at index {}: {:.7g}, expected {:.7g}; the relative L2 error {:.3g} alone "
        "would pass)",
        name, check.elements_outside, count, tolerance.atol, tolerance.rtol, worst, output[worst],
        reference[worst], check.rel_l2_error);
  }
  return check;
}

OutputCheck check_outputs(const task::Task& task, const task::InputSet* set,
                          const std::vector<const float*>& outputs,
                          const std::vector<std::vector<float>>& reference) {
  OutputCheck combined;
  for (size_t o = 0; o < task.outputs.size(); ++o) {
    const std::string& name = task.outputs[o].name;
    OutputCheck check = check_output(name, outputs.at(o), reference.at(o).data(),
                                     reference[o].size(), task.tolerance(name, set));
    combined.rel_l2_error = std::max(combined.rel_l2_error, check.rel_l2_error);
    combined.max_abs_error = std::max(combined.max_abs_error, check.max_abs_error);
    combined.max_rel_error = std::max(combined.max_rel_error, check.max_rel_error);
    combined.non_finite_mismatches += check.non_finite_mismatches;
    combined.elements_outside += check.elements_outside;
    if (!check.ok && combined.ok) {
      combined.ok = false;
      combined.message = check.message;
    }
  }
  return combined;
}

bool record_output_check(const OutputCheck& check, const std::string& when,
                         kernel::Verdict& verdict) {
  kernel::Correctness& c = verdict.correctness;
  c.rel_l2_error = std::max(c.rel_l2_error, check.rel_l2_error);
  c.max_abs_error = std::max(c.max_abs_error, check.max_abs_error);
  c.max_rel_error = std::max(c.max_rel_error, check.max_rel_error);
  if (!check.ok) {
    verdict.status = kernel::Status::kIncorrectNumerical;
    verdict.message = when + ": " + check.message;
    return false;
  }
  return true;
}

}  // namespace accelopt::platform
