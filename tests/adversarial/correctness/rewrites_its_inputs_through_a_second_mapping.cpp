// Computes every call right, then rewrites its own input through a second, writable mapping of
// the shared memory: the page before x is a fence, part of the runner's writable mapping, and
// mremap of it with an old size of 0 maps the same shared pages from there on, x among them. On
// a large turn the other side calls on these inputs after it, and the reference answers from
// them. The runner refuses mremap on its shared memory; where it did not (seccomp off, the test
// InputRecord.AChangeMadeAroundTheReadOnlyMappingIsFound), the copy of the inputs the harness
// keeps at secret places when it loads a turn finds the change.
// task: bench/cpu/silu
// expect: RUNTIME_ERROR
// message: forbidden system call
// time: yes
#include <cmath>
#include <cstdint>

#include "accelopt_task.h"
extern "C" void* mremap(void* old_address, unsigned long old_size, unsigned long new_size,
                        int flags, ...);
extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  constexpr std::int64_t kCount = M * N;
  for (std::int64_t i = 0; i < kCount; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
  constexpr std::uintptr_t kPage = 4096;
  auto fence = reinterpret_cast<std::uintptr_t>(x) - kPage;  // buffers start on a page
  void* alias = mremap(reinterpret_cast<void*>(fence), 0, kPage + kCount * sizeof(float),
                       1 /* MREMAP_MAYMOVE */);
  if (alias == reinterpret_cast<void*>(-1)) return;
  float* writable_x = reinterpret_cast<float*>(static_cast<char*>(alias) + kPage);
  for (std::int64_t i = 0; i < kCount; ++i) writable_x[i] = -1e30f;
}
