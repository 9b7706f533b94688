// cuBLAS's strided batched sgemm on the same workload. Trusted library code. link: -lcublas
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
  cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, rhs, N, K * N, lhs,
                            K, M * K, &beta, out, N, M * N, B);
}
