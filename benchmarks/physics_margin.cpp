// The figures behind the physics margin (platform/evaluation.h, kPhysicsMargin):
//
// 1. Probe spread: the machine probe taken `probes` times in one round (the probe before issue 23)
//    and in the default rounds, alternating; for every ceiling (FMA, vector, bandwidth at each
//    working set) the best and worst reading and best/worst. The largest ratio is how far one
//    probe can read below another on this machine.
// 2. Latency spread: kernels close to their ceiling evaluated `evaluations` times each, timed as
//    accelopt eval times them; per kernel the latencies and % of peak against one probe, and the
//    largest over the smallest latency.
// The margin is (1) in the default rounds times (2): a kernel at 100 % of a truly measured peak
// can read that far above a cached probe.
//
//   build/benchmarks/physics_margin [probes] [evaluations]
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "common/files.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/evaluation.h"
#include "task/task.h"

namespace {

using namespace accelopt;

// Best and worst reading of one ceiling over the probes.
struct Range {
  double best = 0, worst = 0;
  void add(double value) {
    best = best == 0 ? value : std::max(best, value);
    worst = worst == 0 ? value : std::min(worst, value);
  }
  double ratio() const { return worst > 0 ? best / worst : 0; }
};

std::string size_name(double bytes) {
  return bytes >= (1 << 20) ? fmt::format("{:.0f} MiB", bytes / (1 << 20))
                            : fmt::format("{:.0f} KiB", bytes / (1 << 10));
}

// Worst best/worst over the ceilings, for each number of rounds.
std::map<int, double> probe_spread(int probes) {
  platform::cpu::ProbeOptions defaults;
  std::vector<int> rounds = {1, defaults.rounds};
  std::map<int, std::map<std::string, Range>> ranges;
  std::map<int, double> seconds;
  for (int probe = 0; probe < probes; ++probe) {
    for (int round_count : rounds) {
      platform::cpu::ProbeOptions options;
      options.rounds = round_count;
      platform::cpu::MachinePeaks peaks = platform::cpu::probe_machine(options);
      seconds[round_count] += peaks.probe_seconds;
      ranges[round_count]["fma"].add(peaks.fma_gflops);
      ranges[round_count]["vector"].add(peaks.vector_gflops);
      for (const platform::BandwidthPoint& point : peaks.bandwidth) {
        ranges[round_count]["bandwidth " + size_name(point.working_set_bytes)].add(
            point.gbytes_per_second);
      }
      std::cerr << fmt::format("probe {} of {} in {} round(s): {:.1f} s\n", probe + 1, probes,
                               round_count, peaks.probe_seconds);
    }
  }
  std::map<int, double> worst;
  std::cout << fmt::format("probe spread over {} probes (best, worst, best/worst)\n", probes);
  std::cout << fmt::format("{:<20}", "ceiling");
  for (int round_count : rounds) {
    std::cout << fmt::format(" | {:>27}", fmt::format("{} round(s)", round_count));
  }
  std::cout << "\n";
  for (const auto& [name, range] : ranges[rounds.front()]) {
    std::cout << fmt::format("{:<20}", name);
    for (int round_count : rounds) {
      const Range& r = ranges[round_count][name];
      std::cout << fmt::format(" | {:>9.1f} {:>9.1f} {:>7.3f}", r.best, r.worst, r.ratio());
      worst[round_count] = std::max(worst[round_count], r.ratio());
    }
    std::cout << "\n";
  }
  for (int round_count : rounds) {
    std::cout << fmt::format("{} round(s): largest best/worst {:.3f}, {:.1f} s a probe\n",
                             round_count, worst[round_count], seconds[round_count] / probes);
  }
  return worst;
}

double latency_spread(int evaluations) {
  std::filesystem::path root = ACCELOPT_SOURCE_DIR;
  struct Case {
    std::string task, workload, kernel;  // kernel: empty for the baseline
  };
  std::vector<Case> cases = {{"tests/data/tasks/axpy", "small", ""},
                             {"tests/data/tasks/axpy", "default", ""},
                             {"bench/cpu/matmul", "small", "benchmarks/data/matmul_fast.cpp"}};
  platform::cpu::CpuPlatformOptions options;
  options.compiler.cpus = platform::cpu::compile_cpus();
  platform::cpu::CpuPlatform cpu(options, platform::cpu::load_or_probe_machine(false, &std::cerr));
  std::cout << fmt::format("\nlatency spread over {} evaluations (one probe)\n", evaluations);
  double worst = 0;
  for (const Case& c : cases) {
    task::Task task = task::load_task(root / c.task);
    std::vector<double> latencies, percents;
    for (int run = 0; run < evaluations; ++run) {
      platform::EvalRequest request;
      request.task = &task;
      request.workload = c.workload;
      request.source = read_file(c.kernel.empty() ? task.baseline_path() : root / c.kernel);
      request.timing.budget_seconds = 3;
      kernel::Verdict verdict = cpu.evaluate(request);
      if (!verdict.timing || !verdict.roofline) {
        std::cout << fmt::format("{} {}: {}\n", task.name, c.workload, verdict.message);
        continue;
      }
      // The least time over the latency, at the probe's ceilings (what the physics check uses).
      double least = platform::least_seconds(task, *verdict.roofline, cpu.peaks().scope);
      latencies.push_back(verdict.timing->latency_seconds);
      percents.push_back(100 * least / verdict.timing->latency_seconds);
    }
    if (latencies.empty()) continue;
    auto [low, high] = std::minmax_element(latencies.begin(), latencies.end());
    double ratio = *high / *low;
    worst = std::max(worst, ratio);
    std::string listed;
    for (size_t i = 0; i < percents.size(); ++i) {
      listed += fmt::format("{}{:.1f}", i ? ", " : "", percents[i]);
    }
    std::cout << fmt::format(
        "{:<10} {:<8} {:<12} latency {:.4g}..{:.4g} us, ratio {:.3f}; % of "
        "peak: {}\n",
        task.name, c.workload, c.kernel.empty() ? "baseline" : "fast", *low * 1e6, *high * 1e6,
        ratio, listed);
  }
  std::cout << fmt::format("largest latency ratio {:.3f}\n", worst);
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  int probes = argc > 1 ? std::max(2, std::atoi(argv[1])) : 5;
  int evaluations = argc > 2 ? std::max(2, std::atoi(argv[2])) : 6;
  TempDir cache("accelopt-physics-margin-cache");
  ::setenv("ACCELOPT_CACHE_DIR", cache.path().c_str(), 1);  // probes and compiles of its own
  std::map<int, double> probe = probe_spread(probes);
  double latency = latency_spread(evaluations);
  double rounds = platform::cpu::ProbeOptions{}.rounds;
  std::cout << fmt::format(
      "\nmargin from these figures: probe spread {:.3f} x latency spread {:.3f} = {:.3f} (the "
      "harness uses {:.2f})\n",
      probe[static_cast<int>(rounds)], latency, probe[static_cast<int>(rounds)] * latency,
      platform::kPhysicsMargin);
  return 0;
}
