// The machine's ceilings, measured: single-core FP32 FMA peak, non-FMA vector peak, and streaming
// bandwidth by working-set size. A task's score is its roofline peak time over its latency.
//
// Probing takes a few seconds, so the result is cached (cache_directory()/machine.json) keyed by
// the CPU model; on another CPU model it is probed again.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/json.h"
#include "platform/platform.h"
#include "platform/roofline.h"
#include "task/task.h"

namespace accelopt::platform::cpu {

// The probe's figures: one core's ceilings (scope kOneCore), and what was probed when.
struct MachinePeaks : Peaks {
  std::string cpu_model;
  std::string isa;  // "avx512" or "avx2"
  std::string probed_at;
  double probe_seconds = 0;

  Json to_json() const;
  static MachinePeaks from_json(const Json& json);
};

struct ProbeOptions {
  int cpu = -1;          // the core to probe on; -1: the timing core
  int repetitions = 80;  // best of
  double sample_seconds = 0.01;
};

std::string cpu_model_name();

// What this CPU is, read from the running machine: the one description the harness and the
// agents' prompts share.
struct CpuDescription {
  std::string model_name;  // /proc/cpuinfo's "model name"; "unknown" when absent
  std::string isa;         // widest vector ISA: "AVX-512", "AVX2", "AVX" or "SSE"
  int vector_bits = 128;
  bool fma = false;
  int cores = 1;                             // online logical CPUs
  long l1d_kib = 0, l2_kib = 0, l3_kib = 0;  // 0 when unknown

  int floats_per_vector() const { return vector_bits / 32; }
};

CpuDescription describe_cpu();
MachinePeaks probe_machine(const ProbeOptions& options);
// The cached figures for this CPU model, or a fresh probe (also when `force`).
MachinePeaks load_or_probe_machine(bool force, std::ostream* progress);

// The core timing runs on: the last one, away from where the system tends to put interrupts.
int timing_cpu();
// The cores compiles may use: all but the timing core (all of them on a one-core machine).
std::vector<int> compile_cpus();

}  // namespace accelopt::platform::cpu
