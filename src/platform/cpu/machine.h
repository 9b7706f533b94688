// The machine's ceilings, measured: single-core FP32 FMA peak, non-FMA vector peak, the bfloat16
// dot-product peak where the CPU has one, and streaming bandwidth by working-set size. A task's
// score is its roofline peak time over its latency.
//
// Probing takes a few seconds, so the result is cached (cache_directory()/machine.json) keyed by
// the CPU model; on another CPU model it is probed again.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/json.h"
#include "platform/platform.h"
#include "platform/roofline.h"
#include "task/task.h"

namespace accelopt::platform::cpu {

// What AVX-512 BF16's instructions do with subnormals, tried on this core by the probe (each
// result is either exact or zero): vdpbf16ps's subnormal inputs and results, vcvtneps2bf16's
// subnormal floats. `tried` false: the CPU has no AVX-512 BF16, or this build cannot try.
struct Bf16Subnormals {
  bool tried = false;
  bool dot_inputs_read_as_zero = false;
  bool dot_results_flushed = false;
  bool convert_flushed = false;
};

// The probe's figures: one core's ceilings (scope kOneCore), and what was probed when.
struct MachinePeaks : Peaks {
  std::string cpu_model;
  std::string isa;  // "avx512" or "avx2"
  // One core's AVX-512 BF16 dot products (vdpbf16ps, 2 FLOPs a bfloat16 multiply-add), the matrix
  // ceiling of bfloat16 work (narrow_matrix_gflops["bfloat16"]); 0 where the CPU has no AVX-512
  // BF16.
  double bf16_dot_gflops = 0;
  std::string probed_at;
  double probe_seconds = 0;
  // How the figures were checked against the core's documented issue rates, and the ceilings
  // refused for exceeding them (refuse_impossible_ceilings); shown by `accelopt machine probe`.
  std::string issue_check;
  std::vector<std::string> refused;
  // The clock the timing core ran at while the probe had it: the fastest of the rounds' chains of
  // dependent integer adds (one a cycle on every x86 core); 0 where not measured.
  double clock_ghz = 0;
  // One dependent chain of the instruction the FMA ceiling times (a 512-bit FMA where the ISA is
  // AVX-512) and of vdpbf16ps: nanoseconds an instruction, the best of the rounds; 0 where not
  // measured (no AVX-512 BF16).
  double fma_latency_ns = 0;
  double bf16_dot_latency_ns = 0;
  Bf16Subnormals bf16_subnormals;

  // Where the task's matrix ceiling is the bfloat16 dot product's (Peaks::for_task), which the
  // ceiling timed beside a run's baseline must then time too.
  bool matrix_ceiling_is_bf16_dot(const task::Task& task) const;

  Json to_json() const;
  static MachinePeaks from_json(const Json& json);
};

struct ProbeOptions {
  int cpu = -1;          // the core to probe on; -1: the timing core
  int repetitions = 80;  // best of, over all rounds
  double sample_seconds = 0.01;
  // Every ceiling is sampled in this many rounds, spread over the probe, and the best kept: one
  // round's samples all fall in a few hundred milliseconds, and on a shared machine all of them
  // can be unlucky (docs/harness.md, "Physics margin": best/worst over four probes 4.19 in one
  // round, 2.88 in four).
  int rounds = 4;
};

std::string cpu_model_name();

// The ceiling that binds a task, sampled between the timed turns on the timed core
// (EvalRequest::time_ceiling), so that it sees the machine the latency sees: on a shared machine
// a neighbour's memory traffic lowers both the kernel's speed and the bandwidth a triad reaches.
// The probe's kernels: FMA chains ("fma"), add chains ("vector"), or the best of a triad, a
// streaming triad and a read-only stream over the task's working set ("memory"). One sample
// lasts about `sample_seconds`; the harness's thread is pinned to `cpu` while it runs.
// `bf16_dot`: the "fma" bound is timed with the bfloat16 dot products (Peaks::for_task
// chose that ceiling for the task); only where the CPU has them.
class CeilingSampler {
 public:
  CeilingSampler(std::string bound, double working_set_bytes, int cpu,
                 double sample_seconds = 0.004, bool bf16_dot = false);
  ~CeilingSampler();
  CeilingSampler(const CeilingSampler&) = delete;
  CeilingSampler& operator=(const CeilingSampler&) = delete;

  void sample();
  // The median of the samples; value 0 before any.
  CeilingAlongside result() const;

 private:
  struct Buffers;
  float matrix_chains(long iterations) const;  // FMA chains, or bfloat16 dot products
  std::string bound_;
  bool bf16_dot_ = false;
  int cpu_;
  long repeat_ = 1;  // passes (memory) or iterations (arithmetic) per sample, calibrated once
  std::unique_ptr<Buffers> buffers_;
  std::vector<double> samples_;
};

// One timed loop of the probe and of CeilingSampler: the function (in machine.cpp), the
// instruction it times and how many of them one pass of its hot loop issues, and what each counts
// for (FLOPs, or bytes for the bandwidth loops). Every rate is computed from this table, and
// ProbeDisassembly (probe_disassembly_test.cpp) disassembles the built library to check each loop
// against it: a compiler that merges identical chains (it once merged bf16_dot_chains' twelve into
// one) fails that test.
struct ProbeLoop {
  std::string function;     // "fma_chains"
  std::string instruction;  // mnemonic prefix as objdump prints it: "vfmadd", "vdpbf16ps"
  int per_pass = 0;         // instructions per pass of the loop
  double work_per_instruction = 0;
  int floats_per_pass = 0;  // bandwidth loops: the elements of each array one pass covers

  double work_per_pass() const { return per_pass * work_per_instruction; }
};
// The loops this build times: fma_chains, add_chains, bf16_dot_chains (x86-64 builds), triad,
// streaming_triad, read_stream.
const std::vector<ProbeLoop>& probe_loops();
// Throws InternalError for a function not in the table.
const ProbeLoop& probe_loop(const std::string& function);

// What one core of a generation can issue, at most, in FLOPs per cycle, from the vendors'
// optimization guides: FP32 FMAs (2 FLOPs a lane), other FP32 vector arithmetic, and AVX-512 BF16
// dot products (4 FLOPs a float lane; 0 where the generation has none).
struct IssueRates {
  double fma_flops_per_cycle = 0;
  double vector_flops_per_cycle = 0;
  double bf16_dot_flops_per_cycle = 0;
};
// For the generations identify_microarchitecture names (Zen 3 to 5, Skylake-SP to Granite
// Rapids, Ice/Tiger Lake, Alder/Raptor Lake); nullopt for the rest.
std::optional<IssueRates> documented_issue_rates(const std::string& microarchitecture);

// The clock the issue rates are multiplied by: cpufreq's cpuinfo_max_freq where sysfs has it,
// else measured (a chain of dependent integer adds runs one a cycle on every x86 core).
struct CoreClock {
  double ghz = 0;
  std::string source;  // "cpuinfo_max_freq" or "measured"
};

// A measured ceiling above what the core can issue (`rates` × `clock`, beyond `margin`) is not a
// measurement of the machine but of a broken probe: it is refused, capped to the issue limit, and
// the reason added to peaks.refused. Also sets peaks.issue_check, what the figures were checked
// against.
void refuse_impossible_ceilings(MachinePeaks& peaks, const std::string& microarchitecture,
                                const IssueRates& rates, const CoreClock& clock,
                                double margin = 0.10);

// A CPU generation as far as /proc/cpuinfo's vendor, family and model tell it, from a small table
// of the common server and client parts; "unknown" for the rest.
struct Microarchitecture {
  std::string name = "unknown";  // "AMD Zen 4", "Intel Sapphire Rapids"
  // How 512-bit vector operations execute: full width, as two 256-bit halves, or not at all;
  // "unknown" when the table has no row for this CPU.
  std::string wide_vectors = "unknown";
};
Microarchitecture identify_microarchitecture(const std::string& vendor, int family, int model);

// One cache level as sysfs describes it: its size per instance and which logical CPUs share one.
struct CacheLevel {
  int level = 0;
  std::string type;   // "Data", "Instruction", "Unified"
  long size_kib = 0;  // one instance's
  int shared_by = 0;  // logical CPUs per instance; 0 when not known
  int instances = 0;  // how many of them the online CPUs have; 0 when not known
};
// The data and unified caches under `cpu_root` (/sys/devices/system/cpu), by level; empty when
// sysfs does not describe them (some virtual machines).
std::vector<CacheLevel> read_caches(const std::filesystem::path& cpu_root);
// "L1d 48 KiB per core; L2 1 MiB per core; L3 32 MiB per group of 8 logical CPUs (16 groups,
// 512 MiB in all)": never a total that reads as if one core had it.
std::string caches_text(const std::vector<CacheLevel>& caches);

// What this CPU is, read from the running machine: the one description the harness and the
// agents' prompts share.
struct CpuDescription {
  std::string model_name;  // /proc/cpuinfo's "model name"; "unknown" when absent
  std::string vendor;      // "AuthenticAMD", "GenuineIntel"; empty when absent
  int family = 0, model = 0;
  Microarchitecture microarchitecture;
  std::string isa;  // widest vector ISA: "AVX-512", "AVX2", "AVX" or "SSE"
  int vector_bits = 128;
  bool fma = false;
  int cores = 1;                             // online logical CPUs
  long l1d_kib = 0, l2_kib = 0, l3_kib = 0;  // 0 when unknown; l3 is the CPU's report, maybe a
                                             // total over groups of cores
  std::vector<CacheLevel> caches;            // with sharing, when sysfs says; else sized from
                                             // l1d_kib, l2_kib, l3_kib with sharing unknown

  int floats_per_vector() const { return vector_bits / 32; }
};

CpuDescription describe_cpu();
MachinePeaks probe_machine(const ProbeOptions& options);
// What this core's vdpbf16ps and vcvtneps2bf16 do with subnormals, tried now (the probe keeps it).
Bf16Subnormals bf16_subnormals_of_this_cpu();
// The cached figures for this CPU model, or a fresh probe (also when `force`).
MachinePeaks load_or_probe_machine(bool force, std::ostream* progress);

// The core timing runs on: the last one this process may use (platform/core_sets.h), away from
// where the system tends to put interrupts.
int timing_cpu();
// The cores compiles may use: all allowed but the timing core (all of them when only one is).
std::vector<int> compile_cpus();

}  // namespace accelopt::platform::cpu
