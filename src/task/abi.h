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
// row-major array.
#pragma once

#include <string>

#include "task/task.h"

namespace accelopt::task {

inline constexpr const char* kKernelHeaderName = "accelopt_task.h";

std::string generate_kernel_header(const Task& task, const Workload& workload);

}  // namespace accelopt::task
