// .incbin built by the assembler itself: `.irp` substitutes `bin` into `.inc\name`, so no word of
// the source, nor of nvcc's preprocessed text, is "incbin"; the host assembler then embeds a file
// in the library (issue 44, 4: nvcc ran unsandboxed and only the raw source was checked). The file
// here is one the sandbox shows (a system header), so that the assembly check, not the sandbox,
// is what refuses it.
// stage: compile
// expect: REJECTED_SOURCE
// message: directive .irp
#include "accelopt_task.h"

asm(".section .rodata\n.irp name,bin\n.inc\\name \"/usr/include/stdio.h\"\n.endr\n.previous");

__global__ void silu_kernel(const float* __restrict x, float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < M * N) out[i] = x[i] / (1.0f + expf(-x[i]));
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  silu_kernel<<<(M * N + 255) / 256, 256>>>(x, out);
}
