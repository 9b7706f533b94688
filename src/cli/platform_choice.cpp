#include "cli/platform_choice.h"

#include <unistd.h>

#include <iostream>
#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "common/subprocess.h"
#include "platform/command/command_config.h"
#include "platform/cpu/machine.h"
#include "platform/cuda/cuda_platform.h"

namespace accelopt::cli {
namespace {

constexpr std::string_view kCommandPrefix = "command:";

std::optional<std::filesystem::path> find_on_path(const std::string& program) {
  const char* path_list = std::getenv("PATH");
  if (!path_list) return std::nullopt;
  std::istringstream directories(path_list);
  std::string directory;
  while (std::getline(directories, directory, ':')) {
    std::filesystem::path candidate = std::filesystem::path(directory) / program;
    if (!directory.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

// The reference outputs the other platforms check against, computed by the CPU platform (which
// needs no peaks for that).
std::unique_ptr<platform::cpu::CpuPlatform> reference_platform(
    platform::cpu::CpuPlatformOptions options) {
  return std::make_unique<platform::cpu::CpuPlatform>(std::move(options),
                                                      platform::cpu::MachinePeaks{});
}

std::unique_ptr<platform::Platform> make_cuda_platform(platform::cpu::CpuPlatform& reference) {
  if (auto missing = missing_nvidia_device()) throw UserError("cuda: " + *missing);
  if (auto unavailable = platform::cuda::cuda_unavailable_reason()) {
    throw UserError("cuda: " + *unavailable);
  }
  std::cerr << "probing the GPU's ceilings (accelopt-gpu-probe)\n";
  platform::cuda::GpuCeilings ceilings = platform::cuda::probe_gpu();
  platform::cpu::CpuPlatform* cpu = &reference;
  return std::make_unique<platform::cuda::CudaPlatform>(
      platform::cuda::CudaPlatformOptions{}, std::move(ceilings),
      [cpu](const task::Task& task, const task::Workload& workload) {
        return cpu->reference_cases(task, workload);
      });
}

}  // namespace

PlatformChoice parse_platform_choice(const std::string& value) {
  PlatformChoice choice;
  if (value == "cpu") return choice;
  if (value == "cuda") {
    choice.kind = PlatformChoice::Kind::kCuda;
    choice.value = value;
    choice.kernel_extension = ".cu";
    return choice;
  }
  if (value.rfind(kCommandPrefix, 0) == 0 && value.size() > kCommandPrefix.size()) {
    choice.kind = PlatformChoice::Kind::kCommand;
    std::filesystem::path file = std::filesystem::absolute(value.substr(kCommandPrefix.size()));
    choice.value = std::string(kCommandPrefix) + file.string();
    choice.command = platform::command::load_command_config(file);
    choice.kernel_extension = choice.command->kernel_extension;
    return choice;
  }
  throw UserError("--platform " + value +
                  ": expected cpu, cuda or command:<file.json> (docs/evaluator-protocol.md)");
}

std::optional<std::string> missing_nvidia_device() {
  std::optional<std::filesystem::path> smi = find_on_path("nvidia-smi");
  if (!smi) return "no NVIDIA device visible (nvidia-smi is not installed)";
  TempDir scratch("accelopt-nvidia-smi");
  SpawnOptions list;
  list.argv = {smi->string(), "-L"};
  list.environment = clean_environment(scratch.path());
  CommandResult result = run_command(list, std::chrono::milliseconds(30000));
  if (result.output.find("GPU ") == std::string::npos) {
    return "no NVIDIA device visible (nvidia-smi found none)";
  }
  return std::nullopt;
}

ChosenPlatform make_platform(const PlatformChoice& choice,
                             platform::cpu::CpuPlatformOptions cpu_options) {
  if (cpu_options.compiler.cpus.empty()) cpu_options.compiler.cpus = platform::cpu::compile_cpus();
  ChosenPlatform chosen;
  switch (choice.kind) {
    case PlatformChoice::Kind::kCpu:
      chosen.cpu = std::make_unique<platform::cpu::CpuPlatform>(
          std::move(cpu_options), platform::cpu::load_or_probe_machine(false, &std::cerr));
      break;
    case PlatformChoice::Kind::kCuda:
      chosen.cpu = reference_platform(std::move(cpu_options));
      chosen.other = make_cuda_platform(*chosen.cpu);
      break;
    case PlatformChoice::Kind::kCommand: {
      chosen.cpu = reference_platform(std::move(cpu_options));
      platform::cpu::CpuPlatform* reference = chosen.cpu.get();
      chosen.other = std::make_unique<platform::command::CommandPlatform>(
          *choice.command, [reference](const task::Task& task, const task::Workload& workload) {
            return reference->reference_cases(task, workload);
          });
      break;
    }
  }
  return chosen;
}

}  // namespace accelopt::cli
