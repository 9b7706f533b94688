// Do the timing intervals keep their promise? On real bench tasks this program measures:
//
//   A/A   the baseline timed against itself: how often the 95 % interval of the speedup holds 1.0
//         (must be ≥ 90 % on a loaded machine) and the median speedup's distance from 1 (< 1 %);
//   power the baseline made slower on purpose by 1.05×, 1.10× and 1.5× (a calibrated spin after
//         the work, sized from the baseline's measured latency): how often the interval lies
//         wholly below 1.0 (must be ≥ 80 % at 1.10×), and the median speedup measured.
//
//   --ab  pairs of differently-bound kernels (benchmarks/data: a vectorized silu with streaming
//         stores, memory-bound, against silu's baseline, compute-bound; a register-blocked
//         matmul, FMA-bound, against matmul's baseline) timed quietly and with a neighbour on the
//         other cores that this program starts (a memory streamer; a compute spinner), the
//         conditions taking turns: how far each figure moves from the quiet one, whether the
//         intervals cover the quiet figure, and how often the harness marks the measurement busy.
//         Targets: the quiet figure covered by ≥ 90 % of the unmarked intervals; every busy
//         measurement that misses it marked.
//
// Each try is a full `accelopt eval`-style evaluation with the default timing options (or
// --budget). The figures are printed per task and workload, then over all of them.
//
//   build/benchmarks/timing_honesty [--quick] [--tasks silu,matmul] [--workloads small,cpu]
//                                   [--aa N] [--power N] [--budget SECONDS]
//   build/benchmarks/timing_honesty --ab [--aa N (tries per condition)] [--budget SECONDS]
//                                   [--tasks silu,matmul] [--workloads cpu]
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/files.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/statistics.h"
#include "task/abi.h"
#include "task/task.h"

namespace {

using namespace accelopt;

struct Options {
  std::vector<std::string> tasks = {"silu", "matmul", "adamw", "swiglu", "rope_single_freq_apply"};
  std::vector<std::string> workloads = {"small", "cpu"};
  int aa_tries = 20;
  int power_tries = 10;
  double budget_seconds = 20;
  bool ab = false;
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--quick") {
      options.tasks = {"silu", "matmul", "adamw"};
      options.aa_tries = 8;
      options.power_tries = 4;
      options.budget_seconds = 5;
    } else if (flag == "--tasks") {
      options.tasks = split(value());
    } else if (flag == "--workloads") {
      options.workloads = split(value());
    } else if (flag == "--aa") {
      options.aa_tries = std::stoi(value());
    } else if (flag == "--power") {
      options.power_tries = std::stoi(value());
    } else if (flag == "--ab") {
      options.ab = true;
    } else if (flag == "--budget") {
      options.budget_seconds = std::stod(value());
    } else {
      throw std::invalid_argument("unknown flag " + flag);
    }
  }
  return options;
}

// A serial chain of integer multiply-adds: its time per iteration does not depend on compiler
// flags (no vectorizing, no folding), so it can be timed here and used inside a kernel.
constexpr const char* kSpin = R"(
static unsigned long long accelopt_spin(long n) {
  unsigned long long x = 1;
  for (long i = 0; i < n; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}
)";

__attribute__((noipa)) unsigned long long spin(long n) {
  unsigned long long x = 1;
  for (long i = 0; i < n; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

double seconds_per_spin() {
  constexpr long kIterations = 2'000'000;
  double best = 1e9;
  for (int repetition = 0; repetition < 30; ++repetition) {
    auto start = std::chrono::steady_clock::now();
    volatile unsigned long long sink = spin(kIterations);
    (void)sink;
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best / kIterations;
}

// The baseline with its entry point renamed, and a new entry point that does the work and then
// spins `iterations` times. The spin's result guards a write no seed ever takes, so it stays.
std::string slowed_source(const task::Task& task, const task::Workload& workload,
                          const std::string& baseline, long iterations) {
  std::string definition = "extern \"C\" void " + task.entry_point + "(";
  size_t at = baseline.find(definition);
  if (at == std::string::npos) throw std::runtime_error(task.name + ": entry point not found");
  std::string source = baseline;
  source.replace(at, definition.size(), "extern \"C\" void accelopt_timed_work(");
  std::string header = task::generate_kernel_header(task, workload);
  size_t open = header.find(definition) + definition.size();
  std::string parameters = header.substr(open, header.find(')', open) - open);
  std::string arguments;
  for (const std::string& parameter : split(parameters)) {
    std::string name = parameter.substr(parameter.find_last_of(" *") + 1);
    arguments += (arguments.empty() ? "" : ", ") + name;
  }
  source += kSpin;
  source += fmt::format(
      "\nextern \"C\" void {}({}) {{\n  accelopt_timed_work({});\n  volatile long spins = {};\n"
      "  if (accelopt_spin(spins) == 42) {}[0] += 1.0f;\n}}\n",
      task.entry_point, parameters, arguments, iterations, task.outputs.front().name);
  return source;
}

struct Tally {
  int tries = 0, held = 0, failed = 0;
  std::vector<double> speedups, half_widths, anchor_latencies;
  // Where an A/A bias would come from: the median ratio of pairs where the candidate ran first
  // over that of pairs where it ran second (order), and of the later half over the earlier (drift).
  std::vector<double> order_effects, drift_effects;
  std::vector<double> timed_seconds;  // seconds inside timed turns, per evaluation

  void add(const kernel::Verdict& verdict, bool wanted_below_one) {
    ++tries;
    if (!verdict.passed() || !verdict.timing) {
      ++failed;
      std::cout << "    not timed: " << verdict.message << "\n";
      return;
    }
    const kernel::Timing& timing = *verdict.timing;
    bool holds_one = timing.speedup_low <= 1 && timing.speedup_high >= 1;
    held += wanted_below_one ? timing.speedup_high < 1 : holds_one;
    speedups.push_back(timing.speedup);
    half_widths.push_back((timing.speedup_high - timing.speedup_low) / 2 / timing.speedup);
    anchor_latencies.push_back(timing.anchor_latency_seconds);
    timed_seconds.push_back(timing.kernel_seconds);
    std::vector<double> first, second, early, late;
    for (size_t i = 0; i < timing.ratios.size(); ++i) {
      (i % 2 == 0 ? first : second).push_back(timing.ratios[i]);
      (2 * i < timing.ratios.size() ? early : late).push_back(timing.ratios[i]);
    }
    order_effects.push_back(platform::median(first) / platform::median(second) - 1);
    drift_effects.push_back(platform::median(late) / platform::median(early) - 1);
  }
  double rate() const { return tries > failed ? 100.0 * held / (tries - failed) : 0; }
};

kernel::Verdict evaluate(platform::cpu::CpuPlatform& cpu, const task::Task& task,
                         const std::string& workload, const std::string& source,
                         double budget_seconds) {
  platform::EvalRequest request;
  request.task = &task;
  request.workload = workload;
  request.source = source;
  request.timing.budget_seconds = budget_seconds;
  return cpu.evaluate(request);
}

// A process on the cores timing does not use, doing what a neighbour on a shared machine does:
// streaming three 64 MiB arrays (memory bandwidth, the last-level cache) or spinning on FMAs in
// L1 (a core's arithmetic; a sibling thread's ports where cores are hyperthreads). Killed when
// this object goes.
enum class Neighbour : uint8_t { kNone, kMemory, kCompute };

const char* neighbour_name(Neighbour kind) {
  return kind == Neighbour::kNone ? "quiet" : kind == Neighbour::kMemory ? "memory" : "compute";
}

[[noreturn]] void be_neighbour(Neighbour kind, const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
  volatile float sink = 0;  // keeps the loops below from being optimized away
  (void)sink;
  if (kind == Neighbour::kMemory) {
    // After fork only system calls: mmap, not malloc (another thread may have held its lock).
    constexpr size_t kCount = 16u << 20;  // floats per array: 64 MiB
    void* memory = mmap(nullptr, 3 * kCount * sizeof(float), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) _exit(1);
    float* a = static_cast<float*>(memory);
    float* b = a + kCount;
    float* c = b + kCount;
    for (size_t i = 0; i < kCount; ++i) b[i] = c[i] = 1.0f;
    for (;;) {
      for (size_t i = 0; i < kCount; ++i) a[i] = b[i] + 0.5f * c[i];
      sink = a[kCount / 2];
    }
  }
  float lanes[128];
  for (int i = 0; i < 128; ++i) lanes[i] = 0.001f * static_cast<float>(i);
  for (;;) {
    for (int repeat = 0; repeat < 1000; ++repeat) {
      for (float& lane : lanes) lane = lane * 0.9999999f + 1e-7f;
    }
    sink = lanes[0];
  }
}

class NeighbourProcess {
 public:
  NeighbourProcess(Neighbour kind, const std::vector<int>& cpus) {
    if (kind == Neighbour::kNone) return;
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed for the neighbour process");
    if (pid_ == 0) be_neighbour(kind, cpus);
    usleep(200'000);  // let it reach its stride (the streamer writes 192 MiB first)
  }
  ~NeighbourProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  NeighbourProcess(const NeighbourProcess&) = delete;
  NeighbourProcess& operator=(const NeighbourProcess&) = delete;

 private:
  pid_t pid_ = -1;
};

struct AbTry {
  double speedup = 0, low = 0, high = 0;
  bool busy = false;
  double other_cores_busy = 0;
  double preemptions_per_pair = 0;
};

// --ab: each pair timed under each condition in turn, `tries` rounds.
int run_ab(const Options& options, platform::cpu::CpuPlatform& cpu,
           const std::filesystem::path& root) {
  struct Pair {
    std::string task, kernel;
  };
  std::vector<Pair> pairs = {{"silu", "silu_fast.cpp"}, {"matmul", "matmul_fast.cpp"}};
  const std::vector<Neighbour> conditions = {Neighbour::kNone, Neighbour::kMemory,
                                             Neighbour::kCompute};
  std::vector<int> others = platform::cpu::compile_cpus();
  std::cout << fmt::format(
      "timing honesty --ab: {} tries per condition, budget {} s per evaluation; neighbours on "
      "cores {}\n\n",
      options.aa_tries, options.budget_seconds, fmt::join(others, ","));
  int unmarked = 0, unmarked_covering = 0, busy_missing = 0, busy_missing_marked = 0;
  int busy_marked = 0, busy_tries = 0, quiet_marked = 0, quiet_tries = 0;
  for (const Pair& pair : pairs) {
    if (std::find(options.tasks.begin(), options.tasks.end(), pair.task) == options.tasks.end()) {
      continue;
    }
    task::Task task = task::load_task(root / "bench/cpu" / pair.task);
    std::string fast = read_file(root / "benchmarks/data" / pair.kernel);
    for (const std::string& workload : options.workloads) {
      if (task.workload_or_default(workload).name != workload) continue;
      std::map<Neighbour, std::vector<AbTry>> tries;
      for (int round = 0; round < options.aa_tries; ++round) {
        for (Neighbour condition : conditions) {
          NeighbourProcess neighbour(condition, others);
          kernel::Verdict verdict = evaluate(cpu, task, workload, fast, options.budget_seconds);
          if (!verdict.passed() || !verdict.timing) {
            std::cout << fmt::format("  {} {} {}: not timed: {}\n", pair.task, workload,
                                     neighbour_name(condition), verdict.message);
            continue;
          }
          const kernel::Timing& timing = *verdict.timing;
          AbTry one{timing.speedup, timing.speedup_low, timing.speedup_high, timing.busy()};
          if (timing.load) {
            one.other_cores_busy = timing.load->other_cores_busy;
            one.preemptions_per_pair =
                static_cast<double>(timing.load->involuntary_switches) / std::max(timing.pairs, 1);
          }
          std::cout << fmt::format(
              "  {:<7} {:<6} {:<8} {:7.3f}x [{:.3f}, {:.3f}]  other cores {:3.0f} % busy, "
              "{:.2f} preemptions a pair{}\n",
              pair.task, workload, neighbour_name(condition), one.speedup, one.low, one.high,
              100 * one.other_cores_busy, one.preemptions_per_pair, one.busy ? "  [busy]" : "");
          tries[condition].push_back(one);
        }
      }
      std::vector<double> quiet_speedups;
      for (const AbTry& one : tries[Neighbour::kNone]) quiet_speedups.push_back(one.speedup);
      if (quiet_speedups.empty()) continue;
      double quiet = platform::median(quiet_speedups);
      for (Neighbour condition : conditions) {
        const std::vector<AbTry>& list = tries[condition];
        std::vector<double> speedups;
        int covering = 0, marked = 0, missing = 0, missing_marked = 0;
        for (const AbTry& one : list) {
          speedups.push_back(one.speedup);
          bool covers = one.low <= quiet && quiet <= one.high;
          covering += covers;
          marked += one.busy;
          if (!covers) {
            ++missing;
            missing_marked += one.busy;
          }
          if (!one.busy) {
            ++unmarked;
            unmarked_covering += covers;
          }
          if (condition == Neighbour::kNone) {
            ++quiet_tries;
            quiet_marked += one.busy;
          } else {
            ++busy_tries;
            busy_marked += one.busy;
            if (!covers) {
              ++busy_missing;
              busy_missing_marked += one.busy;
            }
          }
        }
        if (list.empty()) continue;
        double median = platform::median(speedups);
        std::cout << fmt::format(
            "{:<7} {:<6} {:<8} median {:7.3f}x ({:+.1f} % from the quiet {:.3f}x), range [{:.3f}, "
            "{:.3f}]; intervals covering the quiet figure {}/{}; marked busy {}/{}; missing it "
            "and marked {}/{}\n",
            pair.task, workload, neighbour_name(condition), median, 100 * (median / quiet - 1),
            quiet, *std::min_element(speedups.begin(), speedups.end()),
            *std::max_element(speedups.begin(), speedups.end()), covering, list.size(), marked,
            list.size(), missing_marked, missing);
      }
      std::cout << "\n";
    }
  }
  std::cout << fmt::format(
      "over all: unmarked intervals covering the quiet figure {}/{} ({:.1f} %, want ≥ 90 %); "
      "with a neighbour, marked busy {}/{}, and of those missing the quiet figure marked {}/{} "
      "(want all); quiet tries marked busy {}/{}\n",
      unmarked_covering, unmarked, unmarked > 0 ? 100.0 * unmarked_covering / unmarked : 0.0,
      busy_marked, busy_tries, busy_missing_marked, busy_missing, quiet_marked, quiet_tries);
  return 0;
}

}  // namespace

int main(int argc, char** argv) try {
  std::cout << std::unitbuf;  // each line as it is measured: a run can take long
  Options options = parse_options(argc, argv);
  std::filesystem::path root = ACCELOPT_SOURCE_DIR;
  platform::cpu::CpuPlatformOptions platform_options;
  platform_options.compiler.cpus = platform::cpu::compile_cpus();
  platform_options.profile = false;
  platform::cpu::CpuPlatform cpu(platform_options,
                                 platform::cpu::load_or_probe_machine(false, &std::cerr));
  if (options.ab) {
    if (options.workloads == Options{}.workloads) options.workloads = {"cpu"};
    return run_ab(options, cpu, root);
  }
  double spin_seconds = seconds_per_spin();
  const std::vector<double> slowdowns = {1.05, 1.10, 1.5};
  std::cout << fmt::format(
      "timing honesty: A/A {} tries, power {} tries per slowdown, budget {} s per evaluation; "
      "spin {:.3f} ns per iteration\n\n",
      options.aa_tries, options.power_tries, options.budget_seconds, spin_seconds * 1e9);

  Tally all_aa;
  std::vector<Tally> all_power(slowdowns.size());
  std::vector<double> case_biases;
  for (const std::string& name : options.tasks) {
    task::Task task = task::load_task(root / "bench/cpu" / name);
    std::string baseline = read_file(task.baseline_path());
    for (const std::string& workload_name : options.workloads) {
      const task::Workload& workload = task.workload_or_default(workload_name);
      if (workload.name != workload_name) continue;
      Tally aa;
      for (int i = 0; i < options.aa_tries; ++i) {
        kernel::Verdict verdict =
            evaluate(cpu, task, workload_name, baseline, options.budget_seconds);
        aa.add(verdict, false);
        all_aa.add(verdict, false);
      }
      double bias = platform::median(aa.speedups) - 1;
      case_biases.push_back(bias);
      double latency = platform::median(aa.anchor_latencies);
      std::cout << fmt::format(
          "{:<24} {:<6} latency {:>9.4f} ms  A/A: holds 1.0 in {:>2}/{:<2} ({:5.1f} %), median "
          "{:.4f} ({:+.2f} %), half-width ±{:.2f} %, range [{:.3f}, {:.3f}]\n",
          task.name, workload_name, latency * 1e3, aa.held, aa.tries - aa.failed, aa.rate(),
          bias + 1, 100 * bias, 100 * platform::median(aa.half_widths),
          aa.speedups.empty() ? 0 : *std::min_element(aa.speedups.begin(), aa.speedups.end()),
          aa.speedups.empty() ? 0 : *std::max_element(aa.speedups.begin(), aa.speedups.end()));
      platform::MedianInterval bias_interval = platform::median_interval(aa.speedups);
      std::cout << fmt::format(
          "{:<24} {:<6}   median speedup's 95 % interval over tries [{:.4f}, {:.4f}]; candidate "
          "first/second {:+.2f} %, later/earlier half {:+.2f} %; {:.1f} s timed per evaluation\n",
          "", "", bias_interval.low, bias_interval.high, 100 * platform::median(aa.order_effects),
          100 * platform::median(aa.drift_effects), platform::median(aa.timed_seconds));
      if (options.power_tries == 0) continue;
      // The spin's cost inside the kernel, measured once from a spin sized for 1.5x: in the
      // runner it need not cost what it costs here.
      long probe_iterations = static_cast<long>(0.5 * latency / spin_seconds);
      kernel::Verdict probe = evaluate(cpu, task, workload_name,
                                       slowed_source(task, workload, baseline, probe_iterations),
                                       options.budget_seconds);
      double kernel_spin_seconds = spin_seconds;
      if (probe.passed() && probe.timing && probe.timing->speedup < 1) {
        kernel_spin_seconds = (1 / probe.timing->speedup - 1) *
                              probe.timing->anchor_latency_seconds /
                              static_cast<double>(probe_iterations);
      }
      for (size_t s = 0; s < slowdowns.size(); ++s) {
        long iterations = static_cast<long>((slowdowns[s] - 1) * latency / kernel_spin_seconds);
        std::string source = slowed_source(task, workload, baseline, iterations);
        Tally power;
        for (int i = 0; i < options.power_tries; ++i) {
          kernel::Verdict verdict =
              evaluate(cpu, task, workload_name, source, options.budget_seconds);
          power.add(verdict, true);
          all_power[s].add(verdict, true);
        }
        std::cout << fmt::format(
            "{:<24} {:<6}   {:.2f}x slower: detected {:>2}/{:<2} ({:5.1f} %), median speedup "
            "{:.4f} (1/{:.3f})\n",
            "", "", slowdowns[s], power.held, power.tries - power.failed, power.rate(),
            platform::median(power.speedups), 1 / platform::median(power.speedups));
      }
    }
  }
  std::cout << fmt::format(
      "\nover all: A/A intervals hold 1.0 in {}/{} ({:.1f} %, want ≥ 90 %); median A/A bias "
      "{:+.2f} % (worst case {:+.2f} %, want < 1 %)\n",
      all_aa.held, all_aa.tries - all_aa.failed, all_aa.rate(),
      100 * (platform::median(all_aa.speedups) - 1),
      case_biases.empty()
          ? 0.0
          : 100 * *std::max_element(case_biases.begin(), case_biases.end(),
                                    [](double a, double b) { return std::abs(a) < std::abs(b); }));
  for (size_t s = 0; s < slowdowns.size(); ++s) {
    std::cout << fmt::format("          power at {:.2f}x: {}/{} ({:.1f} %){}\n", slowdowns[s],
                             all_power[s].held, all_power[s].tries - all_power[s].failed,
                             all_power[s].rate(), slowdowns[s] == 1.10 ? ", want ≥ 80 %" : "");
  }
  return 0;
} catch (const std::exception& error) {
  std::cerr << "timing_honesty: " << error.what() << "\n";
  return 1;
}
