// How many tensors a kernel's entry point takes, inputs and outputs together: the runners call it
// with one pointer each (cpu/runner_main.cpp through a function type per count, the CUDA runner
// with this many always), and loading a task refuses more (task.cpp). No other dependencies: the
// runners include it.
#pragma once

#include <cstddef>

namespace accelopt::task {

inline constexpr std::size_t kMostTensors = 16;

}  // namespace accelopt::task
