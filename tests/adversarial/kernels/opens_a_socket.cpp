// expect: RUNTIME_ERROR
// message: socket
#include "accelopt_task.h"
extern "C" int socket(int domain, int type, int protocol);
extern "C" void kernel(const float* __restrict x, const float* __restrict y, float* __restrict out) {
  socket(2 /* AF_INET */, 1 /* SOCK_STREAM */, 0);
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
}
