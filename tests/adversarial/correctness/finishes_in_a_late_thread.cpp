// Returns at once and lets a thread write the outputs a little later: with luck they are done
// before the harness looks. A single-threaded task may not start threads at all (seccomp kills
// the runner at clone, with signals blocked, so the verdict cannot name the call).
// task: tests/data/tasks/axpy
// expect: RUNTIME_ERROR
// message: forbidden system call
#include <chrono>
#include <cstdint>
#include <thread>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y,
                       float* __restrict out) {
  std::thread([x, y, out] {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
  }).detach();
}
