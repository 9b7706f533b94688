#include "platform/cpu/cpu_entry.h"

#include <fmt/format.h>

#include "platform/cpu/cpu_platform.h"
#include "platform/cpu/rule_table.h"
#include "platform/cpu/runner_turns.h"
#include "platform/machine_prompt.h"

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

std::string digits(double value) {
  return fmt::format("{:.3g}", value);
}

// The clock as the probe measured it, and what that figure is.
std::string clock_text(const MachinePeaks& peaks) {
  if (peaks.clock_ghz <= 0) {
    return "not measured (the probe's record predates it, or the chain could not run): cycle "
           "counts below are not given";
  }
  return fmt::format(
      "{:.2f} GHz, measured by the probe: the fastest of its chains of dependent integer adds (one "
      "a cycle) on the timing core, while the probe had that core to itself; the clock under load "
      "(other cores busy, a long hot loop) is not measured and may be lower",
      peaks.clock_ghz);
}

// "throughput 2 a cycle (…), latency 4 cycles (…)" for one instruction the ceilings time.
std::string instruction_text(double gflops, double flops_each, double latency_ns, double clock_ghz,
                             const std::string& ceiling) {
  std::string text;
  if (gflops > 0) {
    double per_ns = gflops / flops_each;
    text = clock_ghz > 0
               ? fmt::format(
                     "throughput {} a cycle ({} ceiling {:.1f} GFLOP/s ÷ {:g} FLOPs an "
                     "instruction ÷ the clock)",
                     digits(per_ns / clock_ghz), ceiling, gflops, flops_each)
               : fmt::format("throughput {} an ns ({} ceiling ÷ {:g} FLOPs an instruction)",
                             digits(per_ns), ceiling, flops_each);
  }
  if (latency_ns > 0) {
    text +=
        (text.empty() ? "" : ", ") +
        (clock_ghz > 0 ? fmt::format("latency {} cycles ({} ns, one dependent chain)",
                                     digits(latency_ns * clock_ghz), digits(latency_ns))
                       : fmt::format("latency {} ns (one dependent chain)", digits(latency_ns)));
  }
  return text.empty() ? "not measured" : text + "; measured by the probe";
}

// What vdpbf16ps and vcvtneps2bf16 did with subnormals when the probe tried them.
std::string subnormals_text(const Bf16Subnormals& found) {
  auto as = [](bool zero, const char* flushed, const char* kept) { return zero ? flushed : kept; };
  return fmt::format(
      "tried on this core by the probe: `vdpbf16ps` (`_mm512_dpbf16_ps`) {} and {}; "
      "`vcvtneps2bf16` (`_mm512_cvtneps_pbh`) {}",
      as(found.dot_inputs_read_as_zero, "reads subnormal bfloat16 inputs as zero",
         "keeps subnormal bfloat16 inputs"),
      as(found.dot_results_flushed, "flushes subnormal float results to zero",
         "keeps subnormal float results"),
      as(found.convert_flushed, "flushes subnormal floats to zero",
         "keeps subnormal floats as bfloat16 subnormals"));
}

// The least turn whose inputs no cache holds when it starts (runner_turns.h), and why that size.
std::string cold_turn_text() {
  std::string size = bytes_text(static_cast<double>(default_in_place_bytes()));
  return last_level_cache_bytes() > 0
             ? size + " (twice the last-level cache)"
             : size + " (the system does not say how large its last-level cache is)";
}

// The probe's instruction facts as prompt variables and facts for a person.
void add_instruction_facts(const MachinePeaks& peaks, MachineDescription& description,
                           Json& machine) {
  std::string clock = clock_text(peaks);
  machine["clock"] = clock;
  description.facts.emplace_back("clock", clock);
  std::string fma_name = peaks.isa == "avx512" ? "512-bit FMA (`vfmadd…ps` on zmm)"
                                               : "256-bit FMA (`vfmadd…ps` on ymm)";
  double fma_flops = peaks.isa == "avx512" ? 32 : 16;
  Json instructions = Json::array();
  instructions.push_back(
      {{"name", fma_name},
       {"figures", instruction_text(peaks.fma_gflops, fma_flops, peaks.fma_latency_ns,
                                    peaks.clock_ghz, "the FMA")}});
  if (peaks.bf16_dot_gflops > 0) {
    instructions.push_back(
        {{"name", "`vdpbf16ps` (512-bit)"},
         {"figures", instruction_text(peaks.bf16_dot_gflops, 64, peaks.bf16_dot_latency_ns,
                                      peaks.clock_ghz, "the bfloat16 dot product")}});
  }
  for (const Json& instruction : instructions) {
    description.facts.emplace_back(instruction["name"].get<std::string>(),
                                   instruction["figures"].get<std::string>());
  }
  machine["instructions"] = instructions;
  if (peaks.bf16_subnormals.tried) {
    std::string subnormals = subnormals_text(peaks.bf16_subnormals);
    machine["bf16_subnormals"] = subnormals;
    description.facts.emplace_back("bfloat16 subnormals", subnormals);
  }
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
                  {"rules", rules_variables(kernel_rules())},
                  {"cold_turn_bytes", cold_turn_text()}};
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
    add_instruction_facts(peaks, description, machine);
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
