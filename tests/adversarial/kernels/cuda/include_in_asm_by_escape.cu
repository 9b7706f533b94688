// `.include` spelled with an escape in a host asm string: the assembler reads the file and quotes
// its lines in its errors, which reached the verdict's log (issue 44, 4: a 0600 file of
// accelopt's was quoted so). Now nvcc runs in a sandbox that shows no such file, the assembly is
// checked, and a diagnostic about another file never shows its text.
// stage: compile
// expect: REJECTED_SOURCE
// message: directive .include
// log lacks: begin_decls
#include "accelopt_task.h"

asm(".inc\x6cude \"/usr/include/stdio.h\"");

__global__ void silu_kernel(const float* __restrict x, float* __restrict out) {
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < M * N) out[i] = x[i] / (1.0f + expf(-x[i]));
}

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  silu_kernel<<<(M * N + 255) / 256, 256>>>(x, out);
}
