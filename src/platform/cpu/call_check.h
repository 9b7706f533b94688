// What the harness does around every call of a kernel: put one case's inputs in place (outputs set
// to NaN, fences re-armed) before, and check everything the call must leave true after.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/checker.h"
#include "platform/cpu/runner.h"
#include "platform/platform.h"
#include "platform/shared_buffers.h"

namespace accelopt::platform::cpu {

// Slot 0 only: the one the harness's single calls use.
void load_case(SharedBuffers& buffers, const task::Task& task, const ReferenceCase& reference_case);

// One slot of a timed turn's layout (runner_protocol.h); the caller re-arms the fences.
void load_inputs(SharedBuffers& buffers, const SlotLayout& layout, int input_slot,
                 const ReferenceCase& reference_case);
void clear_outputs(SharedBuffers& buffers, const SlotLayout& layout, int output_slot);

// The layout of one slot for `task`: its inputs, then its outputs.
SlotLayout single_slot(const task::Task& task);

// No fence damaged, inputs unchanged, no thread left behind, outputs equal to the reference's.
// Fills `verdict` (status, message, correctness figures) and returns false on the first failure;
// `when` starts the message ("case 2", "after timed turn 7 (case 1)").
bool check_call(const task::Task& task, const SharedBuffers& buffers, const Runner& runner,
                const ReferenceCase& reference_case, const std::string& when, Verdict& verdict);
// The same for a call of a timed turn that read input slot `slots.input` (holding
// `reference_case`) and wrote output slot `slots.output`.
bool check_call(const task::Task& task, const SharedBuffers& buffers, const Runner& runner,
                const SlotLayout& layout, CallSlots slots, const ReferenceCase& reference_case,
                const std::string& when, Verdict& verdict);
// Input slot `input_slot` still holds `reference_case`'s inputs, byte for byte.
bool check_inputs(const task::Task& task, const SharedBuffers& buffers, const SlotLayout& layout,
                  int input_slot, const ReferenceCase& reference_case, const std::string& when,
                  Verdict& verdict);

}  // namespace accelopt::platform::cpu
