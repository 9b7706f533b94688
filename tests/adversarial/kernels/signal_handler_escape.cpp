// Tries to catch the sandbox's SIGSYS so that a forbidden call looks like a failed one.
// expect: RUNTIME_ERROR
// message: forbidden system call
#include <csignal>
#include "accelopt_task.h"
extern "C" int socket(int domain, int type, int protocol);
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  std::signal(SIGSYS, SIG_IGN);
  socket(2, 1, 0);
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
