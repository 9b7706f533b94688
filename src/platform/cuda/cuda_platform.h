// The CUDA platform: nvcc → a runner process per kernel with the tensors in device memory →
// correctness against the task's CPU reference (the CPU harness computes it) → timing with CUDA
// events, interleaved with the anchor, the L2 flushed before every call → roofline score against
// the GPU's measured ceilings. docs/cuda.md describes each step; the protocol to the runner is in
// runner_protocol.h.
#pragma once

#include <chrono>
#include <functional>
#include <optional>

#include "platform/checker.h"
#include "platform/cuda/cuda_runner.h"
#include "platform/cuda/gpu_ceilings.h"
#include "platform/cuda/nvcc_compiler.h"
#include "platform/platform.h"

namespace accelopt::platform::cuda {

struct CudaPlatformOptions {
  NvccOptions nvcc;
  std::filesystem::path runner;  // empty: find_cuda_runner_program()
  std::chrono::milliseconds call_timeout{10000};
};

// Why this machine cannot run CUDA kernels (no nvcc, no runner built, no device), or nullopt.
// Tests skip with this reason.
std::optional<std::string> cuda_unavailable_reason();

class CudaPlatform : public Platform {
 public:
  CudaPlatform(CudaPlatformOptions options, GpuCeilings ceilings, ReferenceCases reference_cases);

  std::string name() const override { return "cuda"; }
  Verdict evaluate(const EvalRequest& request) override;
  const std::string& compiler_version() const { return compiler_.version(); }
  std::vector<std::string> compiler_flags() const { return compiler_.flags(); }

 private:
  CudaPlatformOptions options_;
  GpuCeilings ceilings_;
  ReferenceCases reference_cases_;
  NvccCompiler compiler_;
  std::filesystem::path runner_program_;
};

// Runs accelopt-gpu-probe (beside the executable or where it was built) and parses its output.
GpuCeilings probe_gpu();

}  // namespace accelopt::platform::cuda
