// The kernel ABI: for each (task, workload) a generated header gives the axes as `constexpr` and
// the entry point's prototype. Reference, baseline and candidates all include it, so a kernel can
// be specialized for its shapes the way NKI kernels are.
//
//   #include "accelopt_task.h"
//   constexpr std::int64_t M = 1024; ...
//   extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
//                          float* __restrict out);
//
// Arguments are the inputs then the outputs, in definition order, each a pointer to a dense
// row-major array of the tensor's dtype: float, int32_t, int8_t; bfloat16 and float16 as
// accelopt::bf16 and _Float16 in C++ (helpers in the header), as CUDA's __nv_bfloat16 and __half in
// a task loaded for CUDA (kernel_extension ".cu"), with the same accelopt::bf16/fp16 names and
// to_float/to_bf16/to_fp16 helpers, callable from host and device code; float8_e4m3fn as
// accelopt::fp8_e4m3 (a byte, with to_float and to_fp8_e4m3), CUDA's __nv_fp8_e4m3 there.
#pragma once

#include <string>

#include "task/task.h"

namespace accelopt::task {

inline constexpr const char* kKernelHeaderName = "accelopt_task.h";

// A task loaded for the CUDA platform (its baseline is baseline.cu): its header is CUDA's.
bool is_cuda_task(const Task& task);

std::string generate_kernel_header(const Task& task, const Workload& workload);

}  // namespace accelopt::task
