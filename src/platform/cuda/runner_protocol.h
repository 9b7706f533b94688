// The wire between the CUDA platform and accelopt-cuda-runner, the process that loads one CUDA
// kernel library and calls it on device memory.
//
// The runner starts with commands arriving on kCommandFd, replies leaving on kReplyFd, the tensors'
// shared memory on kSharedMemoryFd and the kernel library on kLibraryFd. The device holds one
// allocation that mirrors the shared memory byte for byte (tensors and their canary fences), so the
// runner never interprets the tensors: the harness prepares and checks everything on its side,
// outside the candidate's process. Lines of text, so a session reads plainly:
//
//   runner → harness   "READY device=<name> sm=<major.minor> landlock=1 seccomp=1 no_new_privs=1"
//   runner → harness   "FAIL <why>"                  could not start (no device, no entry point)
//   harness → runner   "LOAD"      copy shared memory → device (inputs, NaN outputs, fences)
//   runner → harness   "LOADED"
//   harness → runner   "CALL <n>"  n calls, each after an L2 flush, each between two CUDA events
//   runner → harness   "DONE <seconds>"  the n calls' event time, summed (flushes excluded)
//   harness → runner   "FETCH"     copy device → shared memory, for the harness to check
//   runner → harness   "FETCHED"
//   runner → harness   "ERROR <what>"  a CUDA error (illegal address, launch failure); it exits
//   harness → runner   "QUIT"
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "platform/runner_descriptors.h"

namespace accelopt::platform::cuda {

enum class ReplyKind : uint8_t { kReady, kFail, kLoaded, kDone, kFetched, kError };

struct RunnerReply {
  ReplyKind kind = ReplyKind::kError;
  double seconds = 0;  // kDone
  std::string text;    // kReady: the sandbox fields; kFail, kError: the reason
};

// nullopt for a line that is not a reply of this protocol.
std::optional<RunnerReply> parse_runner_reply(std::string_view line);

}  // namespace accelopt::platform::cuda
