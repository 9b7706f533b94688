// expect: RUNTIME_ERROR
// message: forbidden system call
// unharmed: /tmp/accelopt-adversarial-exec
#include "accelopt_task.h"
extern "C" int execve(const char* path, char* const argv[], char* const envp[]);
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict) {
  const char* argv[] = {"/bin/touch", "/tmp/accelopt-adversarial-exec", nullptr};
  execve("/bin/touch", const_cast<char* const*>(argv), nullptr);
}
