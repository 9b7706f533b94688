// What the checks inside timed turns cost, and how close honest kernels come to the physics limit.
//
// 1. Slot cost: each task's baseline timed against itself, once with one slot (every call of a
//    turn on the same buffers, as before timed turns varied their inputs) and once with the default
//    slots (a slot of its own for every call of a turn), alternating; prints the anchor's median
//    latency per call under each and their ratio. Both sides of a verdict pay the same, so speedups
//    are unchanged; latencies and % of peak shift by the ratio.
// 2. Physics margin: every bench/cpu baseline's % of peak (the least time its counted work needs
//    at the measured ceilings, over its latency) on the small workload; the check refuses above
//    100 % × platform::kPhysicsMargin (platform/evaluation.h).
//
//   build/benchmarks/turn_checks [repetitions] [--skip-margin]
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/files.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/evaluation.h"
#include "platform/statistics.h"
#include "task/task.h"

namespace {

using namespace accelopt;

kernel::Verdict time_baseline(platform::cpu::CpuPlatform& cpu, const task::Task& task,
                              const std::string& workload) {
  platform::EvalRequest request;
  request.task = &task;
  request.workload = workload;
  request.source = read_file(task.baseline_path());
  request.timing.budget_seconds = 3;
  request.timing.min_pairs = 8;
  return cpu.evaluate(request);
}

std::unique_ptr<platform::cpu::CpuPlatform> make_platform(int slots) {
  platform::cpu::CpuPlatformOptions options;
  options.compiler.cpus = platform::cpu::compile_cpus();
  options.slots = slots;
  return std::make_unique<platform::cpu::CpuPlatform>(
      options, platform::cpu::load_or_probe_machine(false, nullptr));
}

void slot_cost(const std::filesystem::path& root, int repetitions) {
  struct Case {
    std::string task, workload;
  };
  std::vector<Case> cases = {{"tests/data/tasks/axpy", "small"},
                             {"tests/data/tasks/axpy", "default"},
                             {"bench/cpu/silu", "small"},
                             {"bench/cpu/matmul", "small"},
                             {"bench/cpu/rmsnorm_matmul", "small"}};
  platform::cpu::CpuPlatformOptions defaults;
  auto single = make_platform(1);
  auto slotted = make_platform(defaults.slots);
  std::cout << fmt::format("slot cost (a slot per call, at most {}, against one slot)\n",
                           defaults.slots);
  std::cout << fmt::format("{:<18} {:<8} {:>12} {:>12} {:>8}\n", "task", "workload", "1 slot us",
                           "slots us", "ratio");
  for (const Case& c : cases) {
    task::Task task = task::load_task(root / c.task);
    std::vector<double> ones, slots;
    for (int run = 0; run < repetitions; ++run) {
      kernel::Verdict a = time_baseline(*single, task, c.workload);
      kernel::Verdict b = time_baseline(*slotted, task, c.workload);
      if (!a.timing || !b.timing) {
        std::cout << task.name << ": " << a.message << " / " << b.message << "\n";
        break;
      }
      ones.push_back(a.timing->anchor_latency_seconds);
      slots.push_back(b.timing->anchor_latency_seconds);
    }
    if (ones.empty()) continue;
    double one = platform::median(ones), slot = platform::median(slots);
    std::cout << fmt::format("{:<18} {:<8} {:>12.3f} {:>12.3f} {:>8.3f}\n", task.name, c.workload,
                             one * 1e6, slot * 1e6, slot / one);
  }
}

void physics_margin(const std::filesystem::path& root) {
  platform::cpu::CpuPlatformOptions defaults;
  auto cpu = make_platform(defaults.slots);
  std::cout << fmt::format(
      "\nbaselines against the physics limit (refused above {:.0f} % of peak)\n",
      100 * platform::kPhysicsMargin);
  std::cout << fmt::format("{:<24} {:>12} {:>12} {:>10} {:<8} {}\n", "task", "latency us",
                           "least us", "% of peak", "bound", "status");
  std::vector<std::filesystem::path> tasks;
  for (const auto& entry : std::filesystem::directory_iterator(root / "bench/cpu")) {
    tasks.push_back(entry.path());
  }
  std::sort(tasks.begin(), tasks.end());
  double highest = 0;
  for (const std::filesystem::path& directory : tasks) {
    task::Task task = task::load_task(directory);
    kernel::Verdict verdict = time_baseline(*cpu, task, "small");
    if (!verdict.timing || !verdict.roofline) {
      std::cout << fmt::format("{:<24} {}\n", task.name, verdict.message);
      continue;
    }
    const kernel::RooflineScore& score = *verdict.roofline;
    highest = std::max(highest, score.percent_of_peak);
    std::cout << fmt::format("{:<24} {:>12.3f} {:>12.3f} {:>10.1f} {:<8} {}\n", task.name,
                             verdict.timing->latency_seconds * 1e6, score.peak_seconds * 1e6,
                             score.percent_of_peak, score.bound,
                             kernel::status_name(verdict.status));
  }
  std::cout << fmt::format("highest % of peak of an honest baseline: {:.1f}\n", highest);
}

}  // namespace

int main(int argc, char** argv) {
  int repetitions = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  bool skip_margin = argc > 2 && std::string(argv[2]) == "--skip-margin";
  std::filesystem::path root = ACCELOPT_SOURCE_DIR;
  slot_cost(root, repetitions);
  if (!skip_margin) physics_margin(root);
  return 0;
}
