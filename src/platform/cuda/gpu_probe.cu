// accelopt-gpu-probe: measures this GPU's ceilings and prints them in the format gpu_ceilings.h
// parses. FP32 peaks come from chains of independent FMAs (adds) in every thread of a full grid;
// tensor-core peaks from large cuBLAS GEMMs; bandwidth from a copy kernel over growing working
// sets (bytes read + written). Each figure is the best of several timed repetitions.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "gpu_probe_loops.h"

namespace {

using accelopt_gpu_probe::kChains;
using accelopt_gpu_probe::kIterations;
using accelopt_gpu_probe::kPerPass;
using accelopt_gpu_probe::kUnroll;

void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) {
    std::fprintf(stderr, "accelopt-gpu-probe: %s: %s\n", what, cudaGetErrorString(error));
    std::exit(1);
  }
}

__global__ void fma_kernel(float* out, float seed) {
  float acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = seed + threadIdx.x + c;
#pragma unroll 1
  for (int i = 0; i < kIterations; i += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kChains; ++c) acc[c] = fmaf(acc[c], 0.999999f, 1e-7f);
    }
  }
  float sum = 0;
  for (int c = 0; c < kChains; ++c) sum += acc[c];
  if (sum == 12345.0f) out[0] = sum;  // keeps the work alive
}

__global__ void add_kernel(float* out, float seed) {
  float acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = seed + threadIdx.x + c;
#pragma unroll 1
  for (int i = 0; i < kIterations; i += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kChains; ++c) acc[c] = acc[c] + 1e-7f;
    }
  }
  float sum = 0;
  for (int c = 0; c < kChains; ++c) sum += acc[c];
  if (sum == 12345.0f) out[0] = sum;
}

__global__ void copy_kernel(const float4* __restrict in, float4* __restrict out, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

template <typename Launch>
double best_seconds(Launch launch, int repetitions) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  launch();  // warm-up
  check(cudaDeviceSynchronize(), "warm-up");
  double best = 1e30;
  for (int r = 0; r < repetitions; ++r) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    check(cudaEventSynchronize(stop), "timed run");
    float milliseconds = 0;
    cudaEventElapsedTime(&milliseconds, start, stop);
    best = std::min(best, milliseconds / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best;
}

void probe_tensor(cublasHandle_t handle, const char* name, cudaDataType type,
                  cublasComputeType_t compute) {
  const int n = 8192;
  void *a, *b, *c;
  size_t element = type == CUDA_R_32F ? 4 : 2;
  check(cudaMalloc(&a, element * n * n), "cudaMalloc");
  check(cudaMalloc(&b, element * n * n), "cudaMalloc");
  check(cudaMalloc(&c, 4ull * n * n), "cudaMalloc");
  cudaMemset(a, 0, element * n * n);
  cudaMemset(b, 0, element * n * n);
  float alpha = 1, beta = 0;
  bool failed = false;
  double seconds = best_seconds(
      [&] {
        if (cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, type, n, b, type, n,
                         &beta, c, CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT) !=
            CUBLAS_STATUS_SUCCESS) {
          failed = true;
        }
      },
      5);
  if (!failed) std::printf("tensor_gflops %s %.1f\n", name, 2.0 * n * n * n / seconds / 1e9);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

}  // namespace

int main() {
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, 0), "no CUDA device");
  std::printf("accelopt-gpu-probe 1\ndevice %s\nsm %d.%d\nsms %d\n", properties.name,
              properties.major, properties.minor, properties.multiProcessorCount);

  float* sink;
  check(cudaMalloc(&sink, sizeof(float)), "cudaMalloc");
  int blocks = properties.multiProcessorCount * 8, threads = 256;
  // Multiply-adds (adds) in all: passes of the loop × what a pass issues (gpu_probe_loops.h).
  double flops = double(blocks) * threads * (kIterations / kUnroll) * kPerPass;
  double fma = best_seconds([&] { fma_kernel<<<blocks, threads>>>(sink, 1.0f); }, 10);
  std::printf("fp32_fma_gflops %.1f\n", 2 * flops / fma / 1e9);
  double add = best_seconds([&] { add_kernel<<<blocks, threads>>>(sink, 1.0f); }, 10);
  std::printf("fp32_add_gflops %.1f\n", flops / add / 1e9);

  cublasHandle_t handle;
  if (cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS) {
    probe_tensor(handle, "tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32);
    if (properties.major >= 7) probe_tensor(handle, "fp16", CUDA_R_16F, CUBLAS_COMPUTE_32F);
    if (properties.major >= 8) probe_tensor(handle, "bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F);
    cublasDestroy(handle);
  }

  size_t largest = std::min<size_t>(properties.totalGlobalMem / 4, 4ull << 30);
  for (size_t working_set = 1 << 20; working_set <= largest; working_set *= 4) {
    size_t half = working_set / 2;  // in and out together make the working set
    float4 *in, *out;
    check(cudaMalloc(&in, half), "cudaMalloc");
    check(cudaMalloc(&out, half), "cudaMalloc");
    cudaMemset(in, 0, half);
    size_t count = half / sizeof(float4);
    int repeat = int(std::max<size_t>(1, (256ull << 20) / working_set));
    double seconds = best_seconds(
        [&] {
          for (int r = 0; r < repeat; ++r) copy_kernel<<<blocks, threads>>>(in, out, count);
        },
        5);
    std::printf("bandwidth %zu %.1f\n", working_set, double(working_set) * repeat / seconds / 1e9);
    cudaFree(in);
    cudaFree(out);
  }
  return 0;
}
