// expect: RUNTIME_ERROR
// message: forbidden system call
#include <atomic>
#include <thread>
#include "accelopt_task.h"
static std::atomic<bool> started{false};
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
  if (!started.exchange(true)) {
    std::thread([] { volatile double sink = 0; while (true) sink = sink + 1; }).detach();
  }
}
