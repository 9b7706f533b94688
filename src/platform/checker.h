// Is an output close enough to the reference's? Two measures, both in float64, both must hold:
// NKIBench's relative L2 error of the whole tensor, ‖out − ref‖₂ / ‖ref‖₂ < rel_l2, and numpy's
// allclose for every element, |out − ref| ≤ atol + atol_rms·rms(ref) + rtol·|ref|, where rms(ref)
// is the root mean square of the reference values given (of a sample, for a check of a sample).
// The first alone lets a kernel get a part of its output badly wrong (zeros in half a softmax row)
// while the norm hardly moves. A non-finite value passes only where the reference has the same
// one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernel/verdict.h"
#include "task/task.h"
#include "task/tensor_values.h"

namespace accelopt::platform {

// One case's inputs, at their dtypes' width, and the reference's outputs for them as float values,
// in definition order.
struct ReferenceCase {
  uint64_t seed = 0;  // never shown: see cpu/inputs.h
  std::string set;    // the input set it was drawn from; empty: the task's own distributions
  std::string label;  // names the case in messages
  std::vector<task::TensorValues> inputs;
  std::vector<std::vector<float>> outputs;
  double reference_seconds = 0;  // the reference's call
  double answer_seconds = 0;     // the whole answer: its buffers loaded, the call, outputs read
};

// `values`, one float array per input in definition order, each encoded in its input's dtype
// (rounded as task::encode_values rounds): a case made by hand, as tests and tools make them.
std::vector<task::TensorValues> encode_inputs(const task::Task& task,
                                              const std::vector<std::vector<float>>& values);

// The reference's cases for a task's workload: how the CUDA and evaluator platforms get the
// answers the CPU platform computes (cpu::CpuPlatform::reference_cases).
using ReferenceCases =
    std::function<std::vector<ReferenceCase>(const task::Task&, const task::Workload&)>;

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

// Adds `check`'s errors to the verdict's worst so far; when it failed, the verdict becomes
// INCORRECT_NUMERICAL with a message that starts with `when`, and false is returned.
bool record_output_check(const OutputCheck& check, const std::string& when,
                         kernel::Verdict& verdict);

}  // namespace accelopt::platform
