// cuBLAS's sgemm for lhsᵀ @ rhs with lhs [K, M]. Trusted library code. link: -lcublas
// Column-major outᵀ = rhsᵀ @ lhs, where lhs read column-major is [M, K]ᵀ already.
#include <cublas_v2.h>

#include "accelopt_task.h"

extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  static cublasHandle_t handle = [] {
    cublasHandle_t created;
    cublasCreate(&created);
    cublasSetMathMode(created, CUBLAS_PEDANTIC_MATH);
    return created;
  }();
  const float alpha = 1.0f, beta = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, N, M, K, &alpha, rhs, N, lhs, M, &beta, out, N);
}
