#include "platform/cpu/checker.h"

#include <fmt/format.h>

#include <cmath>

namespace accelopt::platform::cpu {

OutputCheck check_output(const std::string& name, const float* output, const float* reference,
                         size_t count, double tolerance) {
  OutputCheck check;
  double error_squares = 0, reference_squares = 0;
  size_t first_bad = count;
  for (size_t i = 0; i < count; ++i) {
    double got = output[i], want = reference[i];
    if (!std::isfinite(got) || !std::isfinite(want)) {
      bool same = (std::isnan(got) && std::isnan(want)) || (std::isinf(got) && got == want);
      if (!same) {
        if (check.non_finite_mismatches++ == 0) first_bad = i;
      }
      continue;
    }
    double difference = std::fabs(got - want);
    error_squares += difference * difference;
    reference_squares += want * want;
    check.max_abs_error = std::max(check.max_abs_error, difference);
    check.max_rel_error =
        std::max(check.max_rel_error, difference / std::max(std::fabs(want), 1e-30));
  }
  double reference_norm = std::sqrt(reference_squares);
  double error_norm = std::sqrt(error_squares);
  check.rel_l2_error = reference_norm > 0 ? error_norm / reference_norm : error_norm;
  if (check.non_finite_mismatches > 0) {
    check.ok = false;
    check.rel_l2_error = INFINITY;
    check.message = fmt::format(
        "output '{}' has {} non-finite value(s) where the reference has none (first at index {}: "
        "{}, expected {}){}",
        name, check.non_finite_mismatches, first_bad, output[first_bad], reference[first_bad],
        std::isnan(output[first_bad])
            ? "; outputs hold NaN before each call, so some were never written"
            : "");
  } else if (!(check.rel_l2_error < tolerance)) {
    check.ok = false;
    check.message = fmt::format(
        "output '{}' is wrong: relative L2 error {:.3g} exceeds the tolerance {:.3g} (max abs "
        "error "
        "{:.3g})",
        name, check.rel_l2_error, tolerance, check.max_abs_error);
  }
  return check;
}

}  // namespace accelopt::platform::cpu
