// Computes every call right, then in timed turns (any slot but the correctness cases' first one)
// asks for its input's pages to be writable again and fills them with subnormals, as
// slows_the_other_side_through_its_inputs does: the side that calls next on the same slots would
// crawl through exp. The runners map every input from a read-only descriptor of the shared memory
// (runner_main.cpp), so mprotect is refused and the write faults: nothing the other side reads
// can change.
// task: bench/cpu/silu
// expect: INCORRECT_NUMERICAL
// message: inputs are read-only
// time: yes
#include <cmath>
#include <cstdint>

#include "accelopt_task.h"

extern "C" int mprotect(void* address, unsigned long length, int protection);

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  static const float* correctness_slot = x;
  for (std::int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
  if (x == correctness_slot) return;
  auto page = reinterpret_cast<std::uintptr_t>(x) & ~std::uintptr_t{4095};
  unsigned long length = reinterpret_cast<std::uintptr_t>(x + M * N) - page;
  mprotect(reinterpret_cast<void*>(page), length, 0x1 | 0x2);  // PROT_READ | PROT_WRITE
  float* writable = const_cast<float*>(x);
  for (std::int64_t i = 0; i < M * N; ++i) writable[i] = 1e-40f;
}
