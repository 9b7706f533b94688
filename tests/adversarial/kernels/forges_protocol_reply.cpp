// Writes a runner reply on the reply descriptor, hoping the harness takes it for the real one.
// expect: INCORRECT_NUMERICAL
#include "accelopt_task.h"
extern "C" long write(int fd, const void* buffer, unsigned long count);
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict out) {
  write(4, "DONE\nDONE\nDONE\n", 15);
  for (std::int64_t i = 0; i < N; ++i) out[i] = 1.0f;
}
