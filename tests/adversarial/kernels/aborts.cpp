// expect: RUNTIME_ERROR
// message: Aborted
#include <cstdlib>
#include "accelopt_task.h"
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict) {
  std::abort();
}
