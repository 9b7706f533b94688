// cuBLAS's sgemm on the same workload: what a user would pick instead of writing a kernel.
// Trusted library code, run and timed by the harness like any kernel. link: -lcublas
// Row-major out = lhs @ rhs is column-major outᵀ = rhsᵀ @ lhsᵀ, hence the swapped operands.
#include <cublas_v2.h>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  static cublasHandle_t handle = [] {
    cublasHandle_t created;
    cublasCreate(&created);
    cublasSetMathMode(created, CUBLAS_PEDANTIC_MATH);  // FP32, no TF32: the tolerance needs it
    return created;
  }();
  const float alpha = 1.0f, beta = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, rhs, N, lhs, K, &beta, out, N);
}
