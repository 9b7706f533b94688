// Hostile: the host stub starts a shell.
#include <cstdlib>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  std::system("touch /tmp/accelopt-cuda-escaped");
}
