// --platform: which platform a command evaluates kernels on.
//
//   cpu                  this machine's CPU (the default)
//   cuda                 the NVIDIA GPU here, through nvcc and accelopt-cuda-runner (docs/cuda.md)
//   command:<file.json>  an external evaluator described by a file (docs/evaluator-protocol.md)
//
// The choice also says which kernel files a task must hold (baseline.cpp, baseline.cu, or the
// evaluator file's "kernel_extension"), so it is parsed before tasks are loaded and the platform is
// built after.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "platform/command/command_platform.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/platform.h"

namespace accelopt::cli {

struct PlatformChoice {
  enum class Kind : uint8_t { kCpu, kCuda, kCommand };
  Kind kind = Kind::kCpu;
  std::string value = "cpu";  // the flag's value, the file made absolute: what a run records
  std::string kernel_extension = ".cpp";  // a task's baseline is baseline<kernel_extension>
  std::optional<platform::command::CommandPlatformOptions> command;  // kCommand: the file, read
};

// Throws UserError naming the accepted forms, or the evaluator file's error.
PlatformChoice parse_platform_choice(const std::string& value);

// A built platform, and the CPU platform it owns: the CPU platform is either the chosen one or the
// one that computes the task's reference outputs for the others.
struct ChosenPlatform {
  std::unique_ptr<platform::cpu::CpuPlatform> cpu;
  // cuda, command or the remote queue (--remote-workers); null when the CPU was chosen
  std::unique_ptr<platform::Platform> other;

  platform::Platform& get() { return other ? *other : *cpu; }
};

// Builds the platform: the CPU's peaks are loaded or probed, the GPU is probed. Throws UserError
// when the platform cannot run here ("cuda: no NVIDIA device visible (nvidia-smi found none)").
ChosenPlatform make_platform(const PlatformChoice& choice,
                             platform::cpu::CpuPlatformOptions cpu_options = {});

// The CUDA platform's precondition, checked before anything slow: why this machine shows no NVIDIA
// device, or nullopt.
std::optional<std::string> missing_nvidia_device();

}  // namespace accelopt::cli
