// The wire between the harness and accelopt-runner, the process that loads one kernel and calls it.
//
// The runner is started with the kernel library open on kLibraryFd, the tensors' shared memory on
// kSharedMemoryFd, commands arriving on kCommandFd and replies leaving on kReplyFd. Messages are
// short text lines, so a log of a session reads plainly:
//
//   runner → harness   "READY netns=1 seccomp=1 uid=65534 no_new_privs=1"   sandbox in force
//   runner → harness   "FAIL <why>"                                         could not start
//   harness → runner   "CALL <n>"    call the kernel n times on the buffers in shared memory
//   harness → runner   "TURN <n> <seed>"  a timed turn: n calls, call i on the input and output
//                                  slots turn_slots(seed, i) picks (see SlotLayout)
//   runner → harness   "DONE"        the n calls returned
//   runner → harness   "SYSCALL <name>"  the kernel made a forbidden system call; the runner exits
//   harness → runner   "QUIT"
//
// The stopwatch is the harness's: it times CALL to DONE from outside. Argument pointers are given
// on the command line as byte offsets into the shared memory, in the entry point's argument order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "platform/runner_descriptors.h"

namespace accelopt::platform::cpu {

inline constexpr int kRunnerSetupFailure = 90;
inline constexpr int kRunnerForbiddenSyscall = 91;

// Timed turns vary a call's inputs and outputs among slots: copies of every tensor, each input slot
// holding another case. The --offset arguments list slot 0 (the entry point's arguments in order:
// inputs, then outputs; what CALL uses), then input slots 1.., then output slots 1..; the runner
// learns the shape from "--slots <inputs> <outputs> <input slots> <output slots>".
struct SlotLayout {
  size_t inputs = 0, outputs = 0;  // tensors of each kind
  int input_slots = 1, output_slots = 1;

  size_t input(int slot, size_t tensor) const {
    return slot == 0 ? tensor : inputs + outputs + (slot - 1) * inputs + tensor;
  }
  size_t output(int slot, size_t tensor) const {
    return slot == 0
               ? inputs + tensor
               : inputs + outputs + (input_slots - 1) * inputs + (slot - 1) * outputs + tensor;
  }
  size_t buffers() const {
    return static_cast<size_t>(input_slots) * inputs + static_cast<size_t>(output_slots) * outputs;
  }
};

struct CallSlots {
  int input = 0, output = 0;
};

// The slots of call `call` (from 0) of a turn: a SplitMix64 draw from the turn's seed, so both
// ends of the wire agree without sending a list. The harness draws the seed from getrandom(2) just
// before the turn.
inline CallSlots turn_slots(uint64_t seed, uint64_t call, const SlotLayout& layout) {
  uint64_t z = seed + (call + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return {static_cast<int>((z & 0xffffffffu) % static_cast<uint64_t>(layout.input_slots)),
          static_cast<int>((z >> 32) % static_cast<uint64_t>(layout.output_slots))};
}

}  // namespace accelopt::platform::cpu
