// FLOP counts read from a task's Python reference, for the roofline (`accelopt task import`,
// `accelopt task flops`): the reference run at a few shapes under the driver's FLOP counter
// (python_reference_driver.py), and each count written as an expression over the axes where it
// scales as a product of their powers ("2*M*N*K", "5*B*H*S^2"). What counts how much is in
// docs/task-format.md, "FLOP counts".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "platform/python_reference.h"
#include "task/task.h"

namespace accelopt::platform {

struct MeasuredFlops {
  double mm_flops = 0;
  double vec_flops = 0;
  std::string library;               // "torch" or "numpy": whose operations were counted
  std::vector<std::string> unknown;  // operations the counter does not know, counted as 0
};

// The counts at one shape: every axis's value.
using FlopCounter = std::function<MeasuredFlops(const std::map<std::string, int64_t>& axes)>;

struct InferredFlops {
  std::optional<std::string> mm_flops;  // an expression over the axes, where one fits
  std::optional<std::string> vec_flops;
  std::vector<std::string> notes;  // what was inferred from which shapes, or why not
};

// Counts at `base` (every axis; each free var axis cut to 16 where the constraints and the
// reference allow), then with each var axis doubled in turn (an axis that a constraint
// "axis == ..." decides follows the others), then with all of them doubled, which the expressions
// must predict exactly. A count fits where doubling each axis multiplies it by a power of two (0 to
// 4). Throws UserError where the reference fails or a constraint keeps an axis from doubling.
InferredFlops infer_flops(const task::Task& task, const std::map<std::string, int64_t>& base,
                          const FlopCounter& count);

// The counter for `task`'s reference.py: the inputs drawn as the harness draws them (seed 1), the
// reference run once per shape in its sandbox. `task` must outlive the counter. Throws UserError
// for a task whose reference is C++.
FlopCounter python_reference_flops(const task::Task& task, PythonReferenceOptions options = {});

}  // namespace accelopt::platform
