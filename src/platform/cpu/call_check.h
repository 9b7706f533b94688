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

// One slot of a timed turn's layout (runner_protocol.h); the caller re-arms the fences. Inputs are
// written in their tensors' dtypes (task::encode_values); outputs are cleared to NaN (integer
// outputs to 0xA5 bytes).
void load_inputs(SharedBuffers& buffers, const task::Task& task, const SlotLayout& layout, int slot,
                 const ReferenceCase& reference_case);
void clear_outputs(SharedBuffers& buffers, const task::Task& task, const SlotLayout& layout,
                   int slot);

// A timed turn's outputs start as their dtype's unwritten marker (task::unwritten_marker), a NaN
// that no arithmetic on the finite inputs of a timed turn produces: an element still holding it
// was not written by the call. Integer outputs have no such value; theirs are filled with 0xA5
// bytes and left to the reference check.
void mark_unwritten(SharedBuffers& buffers, const task::Task& task, const SlotLayout& layout,
                    int slot);
// The first of `places` (per output) in `slot`'s outputs that still holds its marker, as
// "output 'out' element 17"; empty when all were written. Places drawn after the call, where the
// kernel cannot know them, find a call skipped for certain and a share q of its elements left
// unwritten with 1 - (1 - q)^places.
std::string unwritten_element(const task::Task& task, const SharedBuffers& buffers,
                              const SlotLayout& layout, int slot,
                              const std::vector<std::vector<size_t>>& places);

// The layout of one slot for `task`: its inputs, then its outputs.
SlotLayout single_slot(const task::Task& task);

// No fence damaged, inputs unchanged (compared where the runner could write them), no thread left
// behind, outputs equal to the reference's.
// Fills `verdict` (status, message, correctness figures) and returns false on the first failure;
// `when` starts the message ("case 2", "after timed turn 7 (case 1)").
bool check_call(const task::Task& task, const SharedBuffers& buffers, const Runner& runner,
                const ReferenceCase& reference_case, const std::string& when, Verdict& verdict);
// The outputs of a timed turn's call on `slot` (whose inputs are `reference_case`'s) against the
// reference; fences, inputs and threads are the caller's, once for the whole turn.
bool check_outputs_of_slot(const task::Task& task, const SharedBuffers& buffers,
                           const SlotLayout& layout, int slot, const ReferenceCase& reference_case,
                           const std::string& when, Verdict& verdict);
// Slot `slot` still holds `reference_case`'s inputs, byte for byte.
bool check_inputs(const task::Task& task, const SharedBuffers& buffers, const SlotLayout& layout,
                  int slot, const ReferenceCase& reference_case, const std::string& when,
                  Verdict& verdict);
// The name of buffer `index` of `layout` by its tensor ("input 'x'"): slots are the harness's.
std::string buffer_name(const task::Task& task, const SlotLayout& layout, size_t index);
// "<when>: the kernel wrote outside <buffer `damaged`'s name> (past its end or before its start)".
std::string wrote_outside(const task::Task& task, const SlotLayout& layout, size_t damaged,
                          const std::string& when);
// Fills `verdict` for a call that ended writing into its read-only input `buffer`
// (CallOutcome::kWroteInput): INCORRECT_SHAPE where one of buffers first .. first + count - 1 has
// its fence damaged (a write past an output's end runs through the fence before it reaches an
// input), INCORRECT_NUMERICAL naming the input otherwise.
void record_input_write(const task::Task& task, const SharedBuffers& buffers,
                        const SlotLayout& layout, size_t buffer, size_t first, size_t count,
                        const std::string& when, Verdict& verdict);

}  // namespace accelopt::platform::cpu
