// expect: RUNTIME_ERROR
// message: forbidden system call
// Makes its inputs writable again. The page after x is a fence, part of the runner's writable
// mapping of the shared memory: mremap of it with an old size of 0 maps the same shared pages
// afresh from there on, writable, y among them. After computing the right answer it overwrites y
// there: a side that called next on these inputs would compute on other values, and no check
// compares read-only inputs. The runner refuses mremap on its shared memory.
#include <cstdint>

#include "accelopt_task.h"
extern "C" void* mremap(void* old_address, unsigned long old_size, unsigned long new_size,
                        int flags, ...);
extern "C" void kernel(const float* __restrict x, const float* __restrict y,
                       float* __restrict out) {
  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];
  constexpr std::uintptr_t kPage = 4096;
  std::uintptr_t fence = (reinterpret_cast<std::uintptr_t>(x + N) + kPage - 1) & ~(kPage - 1);
  std::uintptr_t to_y = reinterpret_cast<std::uintptr_t>(y) - fence;
  void* alias =
      mremap(reinterpret_cast<void*>(fence), 0, to_y + N * sizeof(float), 1 /* MREMAP_MAYMOVE */);
  if (alias == reinterpret_cast<void*>(-1)) return;
  float* writable_y = reinterpret_cast<float*>(static_cast<char*>(alias) + to_y);
  for (std::int64_t i = 0; i < N; ++i) writable_y[i] = 1e30f;
}
