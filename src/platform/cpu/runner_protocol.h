// The wire between the harness and accelopt-runner, the process that loads one kernel and calls it.
//
// The runner is started with the kernel library open on kLibraryFd, the tensors' shared memory on
// kSharedMemoryFd, commands arriving on kCommandFd and replies leaving on kReplyFd. Messages are
// short text lines, so a log of a session reads plainly:
//
//   runner → harness   "READY netns=1 seccomp=1 uid=65534 no_new_privs=1"   sandbox in force
//   runner → harness   "FAIL <why>"                                         could not start
//   harness → runner   "CALL <n>"    call the kernel n times on the buffers in shared memory
//   runner → harness   "DONE"        the n calls returned
//   runner → harness   "SYSCALL <name>"  the kernel made a forbidden system call; the runner exits
//   harness → runner   "QUIT"
//
// The stopwatch is the harness's: it times CALL to DONE from outside. Argument pointers are given
// on the command line as byte offsets into the shared memory, in the entry point's argument order.
#pragma once

namespace accelopt::platform::cpu {

inline constexpr int kCommandFd = 3;
inline constexpr int kReplyFd = 4;
inline constexpr int kSharedMemoryFd = 5;
inline constexpr int kLibraryFd = 6;
inline constexpr int kRunnerSetupFailure = 90;
inline constexpr int kRunnerForbiddenSyscall = 91;

}  // namespace accelopt::platform::cpu
