#include "platform/checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

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

namespace {

// Values checked at once in the common case (check_clean_block), and how many of them one step of
// it takes: four floats widened to four doubles, GCC's vector types (one AVX2 register, or two SSE
// ones where the CPU has no AVX2).
constexpr size_t kBlock = 4096;
constexpr size_t kLanes = 4;
using Floats = float __attribute__((vector_size(kLanes * sizeof(float))));
using Doubles = double __attribute__((vector_size(kLanes * sizeof(double))));
using Masks = int64_t __attribute__((vector_size(kLanes * sizeof(int64_t))));

// What a check adds up over the elements it has seen.
struct Totals {
  double error_squares = 0, reference_squares = 0, max_abs_error = 0, max_rel_error = 0;
  size_t elements_outside = 0, non_finite_mismatches = 0;
  size_t first_non_finite = SIZE_MAX, worst = SIZE_MAX;
  double worst_excess = 0;  // how many times its allowance the worst element is off
};

// Elements [begin, end) one at a time, every case told apart.
void check_each(const float* output, const float* reference, size_t begin, size_t end,
                const task::Tolerance& tolerance, Totals& totals) {
  for (size_t i = begin; i < end; ++i) {
    double got = output[i], want = reference[i];
    if (!std::isfinite(got) || !std::isfinite(want)) {
      bool same = (std::isnan(got) && std::isnan(want)) || (std::isinf(got) && got == want);
      if (!same && totals.non_finite_mismatches++ == 0) totals.first_non_finite = i;
      continue;
    }
    double difference = std::fabs(got - want);
    totals.error_squares += difference * difference;
    totals.reference_squares += want * want;
    totals.max_abs_error = std::max(totals.max_abs_error, difference);
    totals.max_rel_error =
        std::max(totals.max_rel_error, difference / std::max(std::fabs(want), 1e-30));
    double allowed = tolerance.atol + tolerance.rtol * std::fabs(want);
    if (difference > allowed) {
      ++totals.elements_outside;
      double excess = difference / std::max(allowed, 1e-300);
      if (excess > totals.worst_excess) totals.worst_excess = excess, totals.worst = i;
    }
  }
}

// The common case, elements [begin, end) (a multiple of kLanes of them) all finite and within
// their allowance, in vector registers: no branch, and the sums in independent lanes, which plain
// loops would not vectorize without reordering additions (a CPU workload's output, 14.7 M values,
// took 24 ms one at a time, 10 ms so). False, with `totals` untouched, where an element is not:
// check_each then looks at them one by one.
__attribute__((target_clones("avx2", "default"))) bool check_clean_block(
    const float* output, const float* reference, size_t begin, size_t end,
    const task::Tolerance& tolerance, Totals& totals) {
  Doubles errors{}, squares{}, largest{}, relative{};
  Masks failed{};  // all bits set in a lane once an element there fails
  const Doubles atol = Doubles{} + tolerance.atol, rtol = Doubles{} + tolerance.rtol;
  const Doubles most = Doubles{} + std::numeric_limits<double>::max();
  const Doubles tiny = Doubles{} + 1e-30;
  for (size_t i = begin; i < end; i += kLanes) {
    Floats got_floats, want_floats;
    std::memcpy(&got_floats, output + i, sizeof(Floats));  // unaligned loads
    std::memcpy(&want_floats, reference + i, sizeof(Floats));
    Doubles got = __builtin_convertvector(got_floats, Doubles);
    Doubles want = __builtin_convertvector(want_floats, Doubles);
    Doubles signed_difference = got - want;
    Doubles difference = signed_difference < 0 ? -signed_difference : signed_difference;
    Doubles magnitude = want < 0 ? -want : want;
    errors += difference * difference;
    squares += want * want;
    largest = difference > largest ? difference : largest;
    Doubles ratio = difference / (magnitude > tiny ? magnitude : tiny);
    relative = ratio > relative ? ratio : relative;
    // NaN anywhere fails the comparison; an infinite reference fails the first.
    failed |= ~((magnitude <= most) & (difference <= atol + rtol * magnitude));
  }
  for (size_t k = 0; k < kLanes; ++k) {
    if (failed[k] != 0) return false;
  }
  for (size_t k = 0; k < kLanes; ++k) {
    totals.error_squares += errors[k];
    totals.reference_squares += squares[k];
    totals.max_abs_error = std::max(totals.max_abs_error, largest[k]);
    totals.max_rel_error = std::max(totals.max_rel_error, relative[k]);
  }
  return true;
}

// The root mean square of the finite values: a non-finite reference value has a rule of its own
// (it must be matched exactly) and would make every allowance infinite.
double finite_rms(const float* values, size_t count) {
  double squares = 0;
  size_t finite = 0;
  for (size_t i = 0; i < count; ++i) {
    double value = values[i];
    if (!std::isfinite(value)) continue;
    squares += value * value;
    ++finite;
  }
  return finite > 0 ? std::sqrt(squares / static_cast<double>(finite)) : 0;
}

}  // namespace

OutputCheck check_output(const std::string& name, const float* output, const float* reference,
                         size_t count, const task::Tolerance& given) {
  // atol_rms becomes a part of atol once the reference's scale is known.
  task::Tolerance tolerance = given;
  std::string atol_text = fmt::format("atol {:.3g}", given.atol);
  if (given.atol_rms > 0) {
    double rms = finite_rms(reference, count);
    tolerance.atol = given.atol + given.atol_rms * rms;
    tolerance.atol_rms = 0;
    atol_text = fmt::format("atol {:.3g} ({:.3g} + {:.3g} * rms {:.3g} of the reference)",
                            tolerance.atol, given.atol, given.atol_rms, rms);
  }
  Totals totals;
  for (size_t begin = 0; begin < count; begin += kBlock) {
    size_t end = std::min(count, begin + kBlock);
    size_t in_lanes = begin + (end - begin) / kLanes * kLanes;
    if (!check_clean_block(output, reference, begin, in_lanes, tolerance, totals)) {
      check_each(output, reference, begin, in_lanes, tolerance, totals);
    }
    check_each(output, reference, in_lanes, end, tolerance, totals);  // fewer than kLanes
  }
  OutputCheck check;
  check.max_abs_error = totals.max_abs_error;
  check.max_rel_error = totals.max_rel_error;
  check.elements_outside = totals.elements_outside;
  check.non_finite_mismatches = totals.non_finite_mismatches;
  double reference_norm = std::sqrt(totals.reference_squares);
  double error_norm = std::sqrt(totals.error_squares);
  check.rel_l2_error = reference_norm > 0 ? error_norm / reference_norm : error_norm;
  if (check.non_finite_mismatches > 0) {
    size_t i = totals.first_non_finite;
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
        "output '{}' is wrong at {} of {} elements: |out - ref| exceeds {} + rtol {:.3g} * |ref| "
        "(worst at index {}: {:.7g}, expected {:.7g}; the relative L2 error {:.3g} alone would "
        "pass)",
        name, check.elements_outside, count, atol_text, tolerance.rtol, totals.worst,
        output[totals.worst], reference[totals.worst], check.rel_l2_error);
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
