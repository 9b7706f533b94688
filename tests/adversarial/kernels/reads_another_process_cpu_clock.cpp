// expect: RUNTIME_ERROR
// message: forbidden system call
// victim: yes
// Reads the CPU clock of another process (ACCELOPT_VICTIM_PID, outside the evaluation): a clock id
// with its sign bit set names any process's CPU clock, readable whatever its uid. The anchor's
// runner is such a process: a kernel that watched its clock would know whether the other side of
// a pair had run yet, and so which side goes first. The runner allows only its own clocks.
#include <ctime>

#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict x, const float* __restrict y,
                       float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
  auto process_cpu_clock =
      static_cast<clockid_t>((~static_cast<unsigned>(ACCELOPT_VICTIM_PID) << 3) | 2);
  timespec spent{};
  clock_gettime(process_cpu_clock, &spent);
}
