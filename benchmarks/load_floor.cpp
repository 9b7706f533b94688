// What a timed turn's work around the calls costs at the least on this machine, against the calls.
//
//   build/benchmarks/load_floor [filter]
//
// Two figures, each measured here:
// - A process's first pass over shared memory it mapped with MAP_POPULATE, against its second:
//   where paging is virtualized in software, a runner's first touch of each page costs more than
//   the pass itself, and no page fault is counted (docs/harness.md, "Round eight").
// - For each CPU workload, the time to copy one call's inputs from random 64 KB blocks of a pool
//   four times their size (the least a mix of fresh inputs can do: every byte read from memory
//   and written), against the baseline's call. A pair of turns calls twice per slot and loads each
//   slot's inputs once (large turns) or twice (smaller ones): "turns at best" is the ratio a
//   pair's time in turns and loads has to its calls when the harness does nothing else.
// - The harness's own mix of the same inputs ("mix ms", and "turns, mix" the same ratio with it),
//   and, for large turns, the staged mix float32 inputs had before they were moved on their way
//   in ("staged ms"; for smaller turns, mixed through the caches, the same path).
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/files.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/cpu/inputs.h"
#include "platform/cpu/runner_turns.h"
#include "platform/evaluation.h"
#include "platform/statistics.h"
#include "task/task.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

long minor_faults() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// A child maps `bytes` of shared memory the parent wrote, populated, and passes over it three
// times (reads the first half, writes the second): each pass's time and page faults.
void first_touch(size_t bytes) {
  int fd = ::memfd_create("load-floor", 0);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    std::cout << "first touch: no shared memory\n";
    return;
  }
  void* parent = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (parent == MAP_FAILED) return;
  std::memset(parent, 1, bytes);
  std::cout << std::flush;
  pid_t child = ::fork();
  if (child == 0) {
    auto* mapped = static_cast<float*>(
        ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0));
    if (mapped == MAP_FAILED) ::_exit(1);
    size_t half = bytes / sizeof(float) / 2;
    for (int pass = 1; pass <= 3; ++pass) {
      long faults = minor_faults();
      auto start = Clock::now();
      for (size_t i = 0; i < half; ++i) mapped[half + i] = mapped[i] * 2.0f;
      std::cout << fmt::format(
                       "first touch: pass {} over {:.1f} MB in a new process: {:.1f} ms, "
                       "{} page faults\n",
                       pass, static_cast<double>(bytes) / 1e6, seconds_since(start) * 1e3,
                       minor_faults() - faults)
                << std::flush;
    }
    ::_exit(0);
  }
  ::waitpid(child, nullptr, 0);
  ::munmap(parent, bytes);
  ::close(fd);
}

// Median seconds to copy `bytes` from random 64 KB blocks of a pool four times as large.
double pool_copy_seconds(size_t bytes) {
  constexpr size_t kBlock = size_t{64} * 1024;
  std::vector<unsigned char> pool(4 * bytes + kBlock, 7);
  std::vector<unsigned char> into(bytes, 0);
  std::mt19937_64 random(1);
  std::vector<double> times;
  for (int run = 0; run < 7; ++run) {
    auto start = Clock::now();
    for (size_t at = 0; at < bytes; at += kBlock) {
      size_t from = random() % (4 * bytes);
      std::memcpy(into.data() + at, pool.data() + from, std::min(kBlock, bytes - at));
    }
    times.push_back(seconds_since(start));
  }
  return accelopt::platform::median(times);
}

// Median seconds of the harness's own mix of one call's inputs from a pool of four cases, stored as
// a turn of its size stores them (runner_turns.h): into buffers that hold whole floats, as a slot's
// do, and into buffers one byte off, where float32 values mixed around the caches take the staged
// path (moved in a block, then copied) that every such mix took before they were moved on their
// way into the slot. Through the caches both take the same path.
struct MixSeconds {
  double slot = 0, staged = 0;
};

MixSeconds mix_seconds(const accelopt::task::Task& task, const accelopt::task::Workload& workload,
                       accelopt::platform::cpu::Stores stores) {
  using namespace accelopt::platform;
  std::vector<ReferenceCase> pool(4);
  for (size_t c = 0; c < pool.size(); ++c) {
    pool[c].inputs = cpu::generate_inputs(task, workload, c + 1);
  }
  cpu::MixCenters centers = cpu::mix_centers(task);
  std::vector<double> steps = cpu::mix_steps(task);
  std::vector<bool> whole = cpu::whole_inputs(task);
  std::vector<std::vector<unsigned char>> storage;
  for (const accelopt::task::TensorValues& tensor : pool.front().inputs) {
    storage.emplace_back(tensor.bytes().size() + 64, 0);
  }
  auto time = [&](size_t offset) {
    std::vector<std::span<unsigned char>> into;
    for (size_t t = 0; t < storage.size(); ++t) {
      into.emplace_back(storage[t].data() + offset, pool.front().inputs[t].bytes().size());
    }
    std::vector<double> times;
    for (uint64_t run = 0; run < 7; ++run) {
      auto start = Clock::now();
      cpu::mix_inputs(pool, centers, run + 1, into, steps, whole, stores);
      times.push_back(seconds_since(start));
    }
    return median(times);
  };
  return {time(0), time(1)};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace accelopt;
  std::string filter = argc > 1 ? argv[1] : "";
  std::filesystem::path root = ACCELOPT_SOURCE_DIR;
  TempDir cache("accelopt-load-floor-cache");
  ::setenv("ACCELOPT_CACHE_DIR", cache.path().c_str(), 1);
  first_touch(size_t{117} << 20);

  platform::cpu::CpuPlatformOptions options;
  options.compiler.cpus = platform::cpu::compile_cpus();
  platform::cpu::CpuPlatform cpu(options, platform::cpu::load_or_probe_machine(false, &std::cerr));
  std::cout << fmt::format("\n{:<22} {:>10} {:>10} {:>9} {:>9} {:>6} {:>15} {:>9} {:>10} {:>11}\n",
                           "workload", "inputs MB", "outputs MB", "call ms", "copy ms", "loads",
                           "turns at best", "mix ms", "staged ms", "turns, mix");
  for (const std::string& name : task::task_names_in(root / "bench/cpu")) {
    if (name.find(filter) == std::string::npos) continue;
    task::Task task = task::load_task(root / "bench/cpu" / name);
    const task::Workload& workload = task.workload_or_default("cpu");
    std::vector<size_t> sizes = platform::buffer_sizes(task, workload);
    size_t inputs = 0, outputs = 0;
    for (size_t i = 0; i < sizes.size(); ++i)
      (i < task.inputs.size() ? inputs : outputs) += sizes[i];

    platform::EvalRequest request;
    request.task = &task;
    request.workload = "cpu";
    request.source = read_file(task.baseline_path());
    request.timing.budget_seconds = 5;
    kernel::Verdict verdict = cpu.evaluate(request);
    if (!verdict.timing) {
      std::cout << fmt::format("{:<22} not timed: {}\n", name, verdict.message);
      continue;
    }
    double call = verdict.timing->anchor_latency_seconds;
    double copy = pool_copy_seconds(inputs);
    // A large turn's inputs are loaded once for both sides (runner_turns.h), a smaller one's twice.
    int loads = inputs + outputs >= platform::cpu::default_in_place_bytes() ? 1 : 2;
    MixSeconds mix = mix_seconds(
        task, workload,
        loads == 1 ? platform::cpu::Stores::kAroundTheCaches : platform::cpu::Stores::kCached);
    std::cout << fmt::format(
        "{:<22} {:>10.1f} {:>10.1f} {:>9.2f} {:>9.2f} {:>6} {:>14.2f}x {:>9.2f} {:>10.2f} "
        "{:>10.2f}x\n",
        name, static_cast<double>(inputs) / 1e6, static_cast<double>(outputs) / 1e6, call * 1e3,
        copy * 1e3, loads, (2 * call + loads * copy) / (2 * call), mix.slot * 1e3, mix.staged * 1e3,
        (2 * call + loads * mix.slot) / (2 * call));
  }
}
