// Starts a thread while the library loads (threads may still be made then) and keeps it: it is
// there before the first call, which the runner checks.
// task: tests/data/tasks/axpy
// expect: RUNTIME_ERROR
// message: before the call
#include <atomic>
#include <cstdint>
#include <thread>
#include "accelopt_task.h"
namespace {
std::atomic<bool> stop{false};
const bool started = [] {
  std::thread([] {
    while (!stop.load()) std::this_thread::yield();
  }).detach();
  return true;
}();
}  // namespace
extern "C" void kernel(const float* __restrict x, const float* __restrict y,
                       float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
