// A task that allows 2 threads: the kernel starts 2 more each call and leaves them writing.
// task: tests/adversarial/correctness/axpy_two_threads
// expect: RUNTIME_ERROR
// message: thread(s) running after it returned
#include <chrono>
#include <cstdint>
#include <thread>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y,
                       float* __restrict out) {
  for (int t = 0; t < 2; ++t) {
    std::thread([x, y, out] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
    }).detach();
  }
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
