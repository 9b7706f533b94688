// The wire between the harness and accelopt-runner, the process that loads one kernel and calls it.
//
// The runner is started with the kernel library open on kLibraryFd, the tensors' shared memory on
// kSharedMemoryFd, commands arriving on kCommandFd and replies leaving on kReplyFd. Messages are
// short text lines, so a log of a session reads plainly:
//
//   runner → harness   "READY netns=1 seccomp=1 uid=65534 no_new_privs=1"   sandbox in force
//   runner → harness   "FAIL <why>"                                         could not start
//   harness → runner   "CALL <n>"    call the kernel n times on the buffers in shared memory
//   harness → runner   "TURN <n>"    a timed turn: n calls, call i on slot i (see SlotLayout)
//   runner → harness   "DONE"        the n calls returned
//   runner → harness   "SYSCALL <name>"  the kernel made a forbidden system call; the runner exits
//   runner → harness   "INPUT <buffer>"  the kernel wrote into an input, which a runner given
//                                        --slots maps read-only; the runner exits
//   harness → runner   "QUIT"
//
// The stopwatch is the harness's: it times CALL to DONE from outside. Argument pointers are given
// on the command line as byte offsets into the shared memory, in the entry point's argument order.
//
// Nothing the verdict depends on crosses this wire or lives in the runner: a kernel shares the
// runner's process and may take it over (read the command pipe, answer DONE itself, read any of its
// memory). So a TURN names only its count; each of its calls writes an output slot of its own, and
// the harness, after stopping the runner, checks that every slot was written and compares every
// call with the other side's run of the turn, and a sample of them with the reference, at places
// and calls drawn then and kept in the harness (runner_turns.h). A false DONE, a skipped call or a
// wrong one shows in the slots, whoever answered. Inputs are mapped read-only, so what the harness
// wrote is what every call read.
#pragma once

#include <cstddef>
#include <cstdint>

#include "platform/runner_descriptors.h"

namespace accelopt::platform::cpu {

inline constexpr int kRunnerSetupFailure = 90;
inline constexpr int kRunnerForbiddenSyscall = 91;
inline constexpr int kRunnerWroteInput = 92;

// Timed turns give every call a slot of its own: copies of every tensor, inputs and outputs. The
// --offset arguments list slot 0 (the entry point's arguments in order: inputs, then outputs; what
// CALL uses), then slot 1's, and so on; the runner learns the shape from "--slots <inputs>
// <outputs> <slots>". The layout is no secret: which calls are checked is decided after the turn.
struct SlotLayout {
  size_t inputs = 0, outputs = 0;  // tensors of each kind
  int slots = 1;                   // the most calls a turn may have

  size_t input(int slot, size_t tensor) const { return slot * (inputs + outputs) + tensor; }
  size_t output(int slot, size_t tensor) const {
    return slot * (inputs + outputs) + inputs + tensor;
  }
  size_t buffers() const { return static_cast<size_t>(slots) * (inputs + outputs); }
};

}  // namespace accelopt::platform::cpu
