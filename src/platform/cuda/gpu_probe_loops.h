// The GPU probe's timed arithmetic loops as its rates count them, shared by gpu_probe.cu and the
// test that disassembles the compiled probe (gpu_probe_disassembly_test.cpp): each pass of the
// compiled loop must issue kPerPass FFMAs (FADDs), or the FP32 ceilings count work the GPU never
// did. The loop is unrolled by hand (kUnroll source iterations a pass, the compiler told not to
// unroll further), so a pass's count is known: loop overhead is 3 instructions in 131.
#pragma once

namespace accelopt_gpu_probe {

constexpr int kChains = 8;         // independent accumulators a thread
constexpr int kIterations = 4096;  // multiply-adds (adds) a chain
constexpr int kUnroll = 16;        // iterations a pass of the compiled loop
constexpr int kPerPass = kChains * kUnroll;
static_assert(kIterations % kUnroll == 0, "whole passes");

}  // namespace accelopt_gpu_probe
