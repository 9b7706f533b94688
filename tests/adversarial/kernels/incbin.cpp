// expect: REJECTED_SOURCE
// message: 'incbin' is not allowed
#include "accelopt_task.h"
asm(".section .rodata\n.global secret\nsecret: .incbin \"/etc/shadow\"\n.previous");
extern "C" void kernel(const float* __restrict, const float* __restrict, float* __restrict) {}
