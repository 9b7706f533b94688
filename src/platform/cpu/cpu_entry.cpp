#include "platform/cpu/cpu_entry.h"

#include <fmt/format.h>

#include "platform/cpu/cpu_platform.h"
#include "platform/cpu/rule_table.h"

namespace accelopt::platform::cpu {
namespace {

CpuPlatformOptions options_for(const PlatformSettings& settings) {
  CpuPlatformOptions options;
  if (!settings.compiler.empty()) options.compiler.compiler = settings.compiler;
  options.compiler.cpus = compile_cpus();
  return options;
}

std::string flags_text(const std::vector<std::string>& flags) {
  std::string text;
  for (const std::string& flag : flags) text += (text.empty() ? "" : " ") + flag;
  return text;
}

// The first line of `--version`: "g++ (Debian 12.2.0-14) 12.2.0".
std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

std::string size_text(double bytes) {
  return bytes >= (1 << 20) ? fmt::format("{:.0f} MiB", bytes / (1 << 20))
                            : fmt::format("{:.0f} KiB", bytes / 1024);
}

}  // namespace

MachineDescription describe_machine(const CpuDescription& cpu, const MachinePeaks& peaks,
                                    const Compiler& compiler) {
  MachineDescription description;
  description.platform = "cpu";
  std::string compiler_text = first_line(compiler.version());
  std::string flags = flags_text(compiler.flags());
  std::string vectors =
      fmt::format("{}, {}-bit registers, {} float32 lanes{}", cpu.isa, cpu.vector_bits,
                  cpu.floats_per_vector(), cpu.fma ? ", FMA" : "");
  std::string caches = caches_text(cpu.caches);
  description.facts = {{"cpu", cpu.model_name},
                       {"generation", cpu.microarchitecture.name},
                       {"vectors", vectors},
                       {"512-bit operations execute", cpu.microarchitecture.wide_vectors},
                       {"cores", std::to_string(cpu.cores) + " logical CPUs"},
                       {"caches", caches},
                       {"compiler", compiler_text},
                       {"compiler flags", flags}};
  Json machine = {{"isa", cpu.isa},
                  {"vector_bits", std::to_string(cpu.vector_bits)},
                  {"floats_per_vector", std::to_string(cpu.floats_per_vector())},
                  {"fma", cpu.fma},
                  {"cores", cpu.cores},
                  {"cpu_model", cpu.model_name},
                  {"microarchitecture", cpu.microarchitecture.name},
                  {"wide_vectors", cpu.microarchitecture.wide_vectors},
                  {"caches", caches},
                  {"compiler", compiler_text},
                  {"compiler_flags", flags},
                  {"rules", rules_variables(kernel_rules())}};
  if (cpu.l1d_kib > 0) machine["l1d_kb"] = cpu.l1d_kib;
  if (cpu.l2_kib > 0) machine["l2_kb"] = cpu.l2_kib;
  if (!peaks.empty()) {
    description.peaks = static_cast<const Peaks&>(peaks);
    description.facts.emplace_back(
        "ceilings", fmt::format("FMA {:.1f} GFLOP/s, other vector arithmetic {:.1f} GFLOP/s (FP32, "
                                "one core; a task on T threads may reach T times these; measured "
                                "{})",
                                peaks.fma_gflops, peaks.vector_gflops, peaks.probed_at));
    Json bandwidth = Json::array();
    for (const BandwidthPoint& point : peaks.bandwidth) {
      description.facts.emplace_back(
          "bandwidth at " + size_text(point.working_set_bytes),
          fmt::format("{:.1f} GB/s (one core)", point.gbytes_per_second));
      bandwidth.push_back({{"working_set", size_text(point.working_set_bytes)},
                           {"gbytes_per_second", fmt::format("{:.1f}", point.gbytes_per_second)}});
    }
    if (peaks.bf16_dot_gflops > 0) {
      description.facts.emplace_back(
          "bfloat16 dot products",
          fmt::format("{:.1f} GFLOP/s (AVX-512 BF16 vdpbf16ps, _mm512_dpbf16_ps; one core)",
                      peaks.bf16_dot_gflops));
      machine["bf16_dot_gflops"] = fmt::format("{:.1f}", peaks.bf16_dot_gflops);
    }
    if (!peaks.issue_check.empty())
      description.facts.emplace_back("issue rates", peaks.issue_check);
    for (const std::string& refusal : peaks.refused) {
      description.facts.emplace_back("refused ceiling", refusal);
    }
    machine["fma_gflops"] = fmt::format("{:.1f}", peaks.fma_gflops);
    machine["vector_gflops"] = fmt::format("{:.1f}", peaks.vector_gflops);
    machine["bandwidth"] = bandwidth;
  }
  description.prompt_variables = machine;
  description.record = peaks.to_json();
  return description;
}

CpuReference make_reference(const PlatformSettings& settings) {
  auto platform = std::make_unique<CpuPlatform>(options_for(settings), MachinePeaks{});
  CpuPlatform* cpu = platform.get();
  CpuReference reference;
  reference.cases = [cpu](const task::Task& task, const task::Workload& workload) {
    return cpu->reference_cases(task, workload);
  };
  reference.seeded = [cpu](const task::Task& task, const task::Workload& workload,
                           std::vector<uint64_t> seeds) {
    return cpu->reference_cases(task, workload, std::move(seeds));
  };
  reference.owner = std::move(platform);
  return reference;
}

PlatformEntry platform_entry() {
  PlatformEntry entry;
  entry.name = "cpu";
  entry.usage = "cpu";
  entry.summary = "this machine's CPU (the default)";
  entry.kernel_extension = ".cpp";
  entry.prompt_fragment = "cpu";
  entry.make = [](const PlatformChoice&, const PlatformSettings& settings, const ReferenceCases&) {
    auto platform = std::make_unique<CpuPlatform>(
        options_for(settings), load_or_probe_machine(settings.probe_again, settings.progress));
    MadePlatform made;
    made.description = describe_machine(describe_cpu(), platform->peaks(), platform->compiler());
    made.platform = std::move(platform);
    return made;
  };
  return entry;
}

}  // namespace accelopt::platform::cpu
