// The harness's side of one accelopt-cuda-runner process (runner_protocol.h): start it on a kernel
// library and the shared tensors, load them to the device, call, fetch them back, stop and continue
// it between turns.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "platform/runner_process.h"
#include "platform/shared_buffers.h"

namespace accelopt::platform::cuda {

struct CudaRunnerOptions {
  std::filesystem::path program;  // accelopt-cuda-runner
  std::filesystem::path library;  // the compiled kernel
  std::string entry_point = "kernel";
  std::chrono::milliseconds start_timeout{60000};  // creating a CUDA context takes seconds
  uint64_t cpu_seconds = 3600;
  bool call_before_sandbox = false;  // trusted library code only: see cuda_runner_main.cpp
  // Once set, a wait for the runner kills it and throws EvaluationAbandoned (platform.h).
  const std::atomic<bool>* abandon = nullptr;
};

enum class StepOutcome : uint8_t { kDone, kTimedOut, kCudaError, kEnded };

struct StepResult {
  StepOutcome outcome = StepOutcome::kDone;
  double event_seconds = 0;  // CALL: the runner's CUDA-event time of all the calls
  double wall_seconds = 0;   // measured here, command to reply
  std::string message;       // for anything but kDone
};

class CudaRunner {
 public:
  CudaRunner(CudaRunnerOptions options, const SharedBuffers& buffers);
  CudaRunner(const CudaRunner&) = delete;
  CudaRunner& operator=(const CudaRunner&) = delete;

  // Starts the process; returns why it could not (no device, the kernel does not load).
  std::optional<std::string> start();
  StepResult load(std::chrono::milliseconds timeout);  // shared memory → device
  StepResult call(int count, std::chrono::milliseconds timeout);
  StepResult fetch(std::chrono::milliseconds timeout);  // device → shared memory
  void pause() { process_.pause(); }
  void resume() { process_.resume(); }
  std::string output() const { return process_.output(); }  // through filter_kernel_output
  const Json& sandbox() const { return sandbox_; }          // the measures the runner reported

 private:
  StepResult step(const std::string& command, std::chrono::milliseconds timeout);
  std::string describe_end();

  CudaRunnerOptions options_;
  const SharedBuffers& buffers_;
  RunnerProcess process_{"the CUDA runner"};
  Json sandbox_ = Json::object();
};

// Where accelopt-cuda-runner is: $ACCELOPT_CUDA_RUNNER, beside the running executable, or where it
// was built; nullopt when this build has no CUDA.
std::optional<std::filesystem::path> find_cuda_runner_program();

}  // namespace accelopt::platform::cuda
