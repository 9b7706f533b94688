// The descriptors every runner process starts with (runner_process.h starts them; the runners'
// own mains, cpu/runner_main.cpp and cuda/cuda_runner_main.cpp, read them).
#pragma once

namespace accelopt::platform {

inline constexpr int kCommandFd = 3;       // commands from the harness
inline constexpr int kReplyFd = 4;         // replies to the harness
inline constexpr int kSharedMemoryFd = 5;  // the tensors (shared_buffers.h)
inline constexpr int kLibraryFd = 6;       // the compiled kernel, read-only

}  // namespace accelopt::platform
