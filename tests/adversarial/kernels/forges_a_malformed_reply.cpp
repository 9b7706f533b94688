// Writes replies the runner only sends from its signal handlers, with no number where one belongs:
// the harness read "SYSCALL <n>" and "INPUT <n>" with std::stoi, which threw on these, and the
// evaluation ended in an exception instead of a verdict. A reply that is not the protocol's is
// the runner saying something other than DONE.
// expect: RUNTIME_ERROR
// message: instead of DONE
#include "accelopt_task.h"
extern "C" long write(int fd, const void* buffer, unsigned long count);
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  write(4, "INPUT the input\nSYSCALL none\n", 29);
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
