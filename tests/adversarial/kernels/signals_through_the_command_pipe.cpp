// expect: RUNTIME_ERROR
// message: forbidden system call
// victim: yes
// Makes the runner's pipes signal another process of its uid (ACCELOPT_VICTIM_PID, started by the
// test outside the evaluation): F_SETOWN names it, F_SETSIG picks SIGKILL, O_ASYNC arms it, and
// each command the harness writes then kills it, while the kernel computes the right answer.
#include "accelopt_task.h"
extern "C" int fcntl(int fd, int command, ...);
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  static bool armed = false;
  if (!armed) {
    armed = true;
    for (int fd = 3; fd <= 4; ++fd) {
      fcntl(fd, 8 /* F_SETOWN */, ACCELOPT_VICTIM_PID);
      fcntl(fd, 10 /* F_SETSIG */, 9 /* SIGKILL */);
      fcntl(fd, 4 /* F_SETFL */, fcntl(fd, 3 /* F_GETFL */) | 020000 /* O_ASYNC */);
    }
  }
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
