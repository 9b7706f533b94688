// What the harness does around every call of a kernel: put one case's inputs in place (outputs set
// to their unwritten marker, fences re-armed) before, and check everything the call must leave
// true after.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/checker.h"
#include "platform/cpu/runner.h"
#include "platform/platform.h"
#include "platform/shared_buffers.h"

namespace accelopt::platform::cpu {

// Slot 0 only, outputs cleared to NaN: the reference's runner (trusted code). A candidate's calls
// never go this way: its correctness cases are loaded as a timed turn is (load_cases_as_turn).
void load_case(SharedBuffers& buffers, const task::Task& task, const ReferenceCase& reference_case);

// A candidate's correctness cases, loaded exactly as a timed turn's fresh inputs are (issue 44):
// case i in slot i of the timed layout, outputs holding their unwritten marker, the slots' fences
// re-armed; the harness then asks for a TURN of cases.size() calls. The fill, the addresses and
// the command are those of a timed turn of as many calls, so a kernel that reads its outputs or
// their addresses before writing cannot tell the phases apart (docs/harness.md "What a kernel can
// still observe"). At most layout.slots cases.
void load_cases_as_turn(SharedBuffers& buffers, const task::Task& task, const SlotLayout& layout,
                        const std::vector<const ReferenceCase*>& cases);

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

// After a turn load_cases_as_turn loaded: no fence of its slots damaged, no thread left behind,
// inputs unchanged (compared where the runner could write them), each slot's outputs equal to its
// case's reference outputs. Fills `verdict` (status, message, correctness figures) and returns
// false on the first failure, whose message starts with the case's label ("case 2").
// `compare_seconds` gets the longest comparison of one call's outputs.
bool check_cases_of_turn(const task::Task& task, const SharedBuffers& buffers, const Runner& runner,
                         const SlotLayout& layout, const std::vector<const ReferenceCase*>& cases,
                         Verdict& verdict, double& compare_seconds);
// The outputs of a timed turn's call on `slot` (whose inputs are `reference_case`'s) against the
// reference; fences, inputs and threads are the caller's, once for the whole turn. The tolerance
// is `set`'s where given, else that of the case's own input set.
bool check_outputs_of_slot(const task::Task& task, const SharedBuffers& buffers,
                           const SlotLayout& layout, int slot, const ReferenceCase& reference_case,
                           const std::string& when, Verdict& verdict,
                           const task::InputSet* set = nullptr);
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
