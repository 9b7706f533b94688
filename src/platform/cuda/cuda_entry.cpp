#include "platform/cuda/cuda_entry.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "common/subprocess.h"
#include "platform/cuda/cuda_platform.h"
#include "platform/cuda/source_rules.h"

namespace accelopt::platform::cuda {
namespace {

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

// nvcc's last line of `--version`: "Build cuda_13.0.r13.0/compiler.36424714_0".
std::string last_line(const std::string& text) {
  std::string trimmed = text.substr(0, text.find_last_not_of("\n") + 1);
  return trimmed.substr(trimmed.find_last_of('\n') + 1);
}

}  // namespace

std::string nvcc_release(const std::string& nvcc_version) {
  // "Cuda compilation tools, release 12.6, V12.6.85"
  static const std::regex release(R"(release ([0-9.]+), (V[0-9.]+))");
  std::smatch match;
  if (std::regex_search(nvcc_version, match, release)) {
    return "nvcc " + match[1].str() + " (" + match[2].str() + ")";
  }
  return "nvcc " + last_line(nvcc_version);
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

MachineDescription describe_machine(const GpuCeilings& ceilings, const std::string& nvcc_version,
                                    const std::vector<std::string>& flags) {
  MachineDescription description;
  description.platform = "cuda";
  std::string compiler = nvcc_release(nvcc_version);
  std::string flags_text;
  for (const std::string& flag : flags) flags_text += (flags_text.empty() ? "" : " ") + flag;
  description.facts = {
      {"gpu", ceilings.device},
      {"compute capability", ceilings.sm},
      {"SMs", ceilings.sms > 0 ? std::to_string(ceilings.sms) : "not recorded by the probe"},
      {"ceilings", fmt::format("FP32 FMA {:.0f} GFLOP/s, FP32 add {:.0f} GFLOP/s (whole device)",
                               ceilings.fp32_fma_gflops, ceilings.fp32_add_gflops)},
      {"compiler", compiler},
      {"compiler flags", flags_text}};
  for (const BandwidthPoint& point : ceilings.bandwidth) {
    description.facts.emplace_back(
        fmt::format("bandwidth at {:.0f} MiB", point.working_set_bytes / (1 << 20)),
        fmt::format("{:.0f} GB/s", point.gbytes_per_second));
  }
  description.prompt_variables = ceilings.prompt_variables();
  description.prompt_variables["compiler"] = compiler;
  description.prompt_variables["compiler_flags"] = flags_text;
  description.prompt_variables["rules"] = rules_variables(kernel_rules());
  description.peaks = ceilings.to_peaks();
  description.record = ceilings.to_json();
  return description;
}

PlatformEntry platform_entry() {
  PlatformEntry entry;
  entry.name = "cuda";
  entry.usage = "cuda";
  entry.summary = "the NVIDIA GPU here, through nvcc and accelopt-cuda-runner (docs/cuda.md)";
  entry.kernel_extension = ".cu";
  entry.prompt_fragment = "cuda";
  entry.devices_per_worker = 1;
  entry.needs_cpu_reference = true;
  entry.make = [](const PlatformChoice&, const PlatformSettings& settings,
                  const ReferenceCases& references) {
    if (auto missing = missing_nvidia_device()) throw UserError("cuda: " + *missing);
    if (auto unavailable = cuda_unavailable_reason()) throw UserError("cuda: " + *unavailable);
    if (settings.progress)
      *settings.progress << "probing the GPU's ceilings (accelopt-gpu-probe)\n";
    GpuCeilings ceilings = probe_gpu();
    auto platform = std::make_unique<CudaPlatform>(CudaPlatformOptions{}, ceilings, references);
    MadePlatform made;
    made.description =
        describe_machine(ceilings, platform->compiler_version(), platform->compiler_flags());
    made.platform = std::move(platform);
    return made;
  };
  return entry;
}

}  // namespace accelopt::platform::cuda
