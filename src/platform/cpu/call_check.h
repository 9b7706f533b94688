// What the harness does around every call of a kernel: put one case's inputs in place (outputs set
// to NaN, fences re-armed) before, and check everything the call must leave true after.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/cpu/runner.h"
#include "platform/cpu/shared_buffers.h"
#include "platform/platform.h"

namespace accelopt::platform::cpu {

// One case's inputs and the reference's outputs for them, in definition order.
struct ReferenceCase {
  uint64_t seed = 0;  // never shown: see inputs.h
  std::string set;    // the input set it was drawn from; empty: the task's own distributions
  std::string label;  // names the case in messages
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<float>> outputs;
  double reference_seconds = 0;
};

void load_case(SharedBuffers& buffers, const task::Task& task, const ReferenceCase& reference_case);

// No fence damaged, inputs unchanged, no thread left behind, outputs equal to the reference's.
// Fills `verdict` (status, message, correctness figures) and returns false on the first failure;
// `when` starts the message ("case 2", "after timed turn 7 (case 1)").
bool check_call(const task::Task& task, const SharedBuffers& buffers, const Runner& runner,
                const ReferenceCase& reference_case, const std::string& when, Verdict& verdict);

}  // namespace accelopt::platform::cpu
