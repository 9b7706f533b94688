// Is an output close enough to the reference's? The measure is NKIBench's: the relative L2 error in
// float64, ‖out − ref‖₂ / ‖ref‖₂. A non-finite value passes only where the reference has the same
// one.
#pragma once

#include <cstddef>
#include <string>

namespace accelopt::platform::cpu {

struct OutputCheck {
  bool ok = true;
  double rel_l2_error = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;
  size_t non_finite_mismatches = 0;
  std::string message;  // empty when ok
};

OutputCheck check_output(const std::string& name, const float* output, const float* reference,
                         size_t count, double tolerance);

}  // namespace accelopt::platform::cpu
