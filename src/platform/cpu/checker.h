// Is an output close enough to the reference's? Two measures, both in float64, both must hold:
// NKIBench's relative L2 error of the whole tensor, ‖out − ref‖₂ / ‖ref‖₂ < rel_l2, and numpy's
// allclose for every element, |out − ref| ≤ atol + rtol·|ref|. The first alone lets a kernel get a
// part of its output badly wrong (zeros in half a softmax row) while the norm hardly moves. A
// non-finite value passes only where the reference has the same one.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "task/task.h"

namespace accelopt::platform::cpu {

struct OutputCheck {
  bool ok = true;
  double rel_l2_error = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;
  size_t non_finite_mismatches = 0;
  size_t elements_outside = 0;  // elements beyond atol + rtol·|ref|
  std::string message;          // empty when ok
};

OutputCheck check_output(const std::string& name, const float* output, const float* reference,
                         size_t count, const task::Tolerance& tolerance);

// Every output of one call against the reference's outputs for the same case, in definition order,
// each with its tolerance for the case's input set (nullptr: the task's own distributions). Errors
// are the worst over the outputs; the message names the first output that fails.
OutputCheck check_outputs(const task::Task& task, const task::InputSet* set,
                          const std::vector<const float*>& outputs,
                          const std::vector<std::vector<float>>& reference);

}  // namespace accelopt::platform::cpu
