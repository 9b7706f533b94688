#include "platform/cpu/machine.h"

#include <immintrin.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "common/files.h"
#include "platform/core_sets.h"

namespace accelopt::platform::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// Bumped whenever the probe measures differently, so cached figures from an older probe are redone.
// 4: each ceiling the best of several rounds; 5: the bf16 dot; 6: its chains independent (5's
// were merged into one by the compiler and counted twelve times), checked against issue rates;
// 7: the clock, the timed instructions' latencies and AVX-512 BF16's subnormals kept.
constexpr int kProbeVersion = 7;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

#ifdef __AVX512F__
using Vector = __m512;
constexpr int kLanes = 16;
inline Vector splat(float value) {
  return _mm512_set1_ps(value);
}
inline Vector fma(Vector a, Vector b, Vector c) {
  return _mm512_fmadd_ps(a, b, c);
}
inline Vector add(Vector a, Vector b) {
  return _mm512_add_ps(a, b);
}
inline float sum(Vector a) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, a);
  float total = 0;
  for (float lane : lanes) total += lane;
  return total;
}
constexpr const char* kIsa = "avx512";
#else
using Vector = __m256;
constexpr int kLanes = 8;
inline Vector splat(float value) {
  return _mm256_set1_ps(value);
}
inline Vector fma(Vector a, Vector b, Vector c) {
  return _mm256_fmadd_ps(a, b, c);
}
inline Vector add(Vector a, Vector b) {
  return _mm256_add_ps(a, b);
}
inline float sum(Vector a) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, a);
  float total = 0;
  for (float lane : lanes) total += lane;
  return total;
}
constexpr const char* kIsa = "avx2";
#endif

// The measured functions are opaque to the optimizer (noipa): otherwise it may move their pure
// arithmetic across the clock reads, and time nothing. Each chain starts from its own value, so
// the compiler cannot merge chains that compute the same thing (it once merged bf16_dot_chains'
// twelve into one, and the rate counted twelve); the loops are not unrolled, so one pass of the
// loop is one iteration, as probe_loops() counts it and ProbeDisassembly
// (probe_disassembly_test.cpp) checks in the built code.

// Twelve independent chains cover the FMA latency on both FMA ports of current x86 cores.
constexpr int kFmaChains = 12;
__attribute__((noipa)) float fma_chains(long iterations) {
  Vector a0 = splat(0.1f), a1 = splat(0.2f), a2 = splat(0.3f), a3 = splat(0.4f), a4 = splat(0.5f),
         a5 = splat(0.6f), a6 = splat(0.7f), a7 = splat(0.8f), a8 = splat(0.9f), a9 = splat(1.0f),
         a10 = splat(1.1f), a11 = splat(1.2f);
  const Vector m = splat(0.9999999f), c = splat(1e-7f);
#pragma GCC unroll 1
  for (long i = 0; i < iterations; ++i) {
    a0 = fma(a0, m, c), a1 = fma(a1, m, c), a2 = fma(a2, m, c), a3 = fma(a3, m, c);
    a4 = fma(a4, m, c), a5 = fma(a5, m, c), a6 = fma(a6, m, c), a7 = fma(a7, m, c);
    a8 = fma(a8, m, c), a9 = fma(a9, m, c), a10 = fma(a10, m, c), a11 = fma(a11, m, c);
  }
  return sum(add(add(add(a0, a1), add(a2, a3)), add(add(a4, a5), add(a6, a7)))) +
         sum(add(add(a8, a9), add(a10, a11)));
}

constexpr int kAddChains = 12;
__attribute__((noipa)) float add_chains(long iterations) {
  Vector a0 = splat(0.1f), a1 = splat(0.2f), a2 = splat(0.3f), a3 = splat(0.4f), a4 = splat(0.5f),
         a5 = splat(0.6f), a6 = splat(0.7f), a7 = splat(0.8f), a8 = splat(0.9f), a9 = splat(1.0f),
         a10 = splat(1.1f), a11 = splat(1.2f);
  const Vector c = splat(1e-7f);
#pragma GCC unroll 1
  for (long i = 0; i < iterations; ++i) {
    a0 = add(a0, c), a1 = add(a1, c), a2 = add(a2, c), a3 = add(a3, c);
    a4 = add(a4, c), a5 = add(a5, c), a6 = add(a6, c), a7 = add(a7, c);
    a8 = add(a8, c), a9 = add(a9, c), a10 = add(a10, c), a11 = add(a11, c);
  }
  return sum(add(add(add(a0, a1), add(a2, a3)), add(add(a4, a5), add(a6, a7)))) +
         sum(add(add(a8, a9), add(a10, a11)));
}

// AVX-512 BF16's dot product (vdpbf16ps): each of 16 float lanes adds two bfloat16 products, 64
// FLOPs an instruction, the matrix ceiling of a bfloat16 kernel. Sixteen chains: its latency is
// longer than the FMA's (6 cycles on Zen 5, which issues two a cycle: twelve chains reached 93 %
// of sixteen's rate there). Compiled for the extension whatever -march says; called only where
// the CPU has it.
constexpr int kDotChains = 16;
#if defined(__x86_64__)
#define ACCELOPT_HAS_BF16_PROBE 1
__attribute__((target("avx512f,avx512bf16"), noipa)) float bf16_dot_chains(long iterations) {
  __m512 chains[kDotChains];
  for (int chain = 0; chain < kDotChains; ++chain) {
    chains[chain] = _mm512_set1_ps(0.1f * static_cast<float>(chain + 1));
  }
  const auto x = (__m512bh)_mm512_set1_epi16(0x3C00);  // 2^-7: a sum of 1e9 of them stays finite
#pragma GCC unroll 1
  for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int chain = 0; chain < kDotChains; ++chain) {
      chains[chain] = _mm512_dpbf16_ps(chains[chain], x, x);
    }
  }
  __m512 total = _mm512_setzero_ps();
  for (const __m512& chain : chains) total = _mm512_add_ps(total, chain);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, total);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}
#endif

// One dependent chain of the instruction each arithmetic ceiling times: every instruction waits
// for the one before, so a pass takes the instruction's latency, where the ceilings' independent
// chains give its throughput.
__attribute__((noipa)) float fma_latency_chain(long iterations) {
  Vector a = splat(0.5f);
  const Vector m = splat(0.9999999f), c = splat(1e-7f);
#pragma GCC unroll 1
  for (long i = 0; i < iterations; ++i) a = fma(a, m, c);
  return sum(a);
}

#ifdef ACCELOPT_HAS_BF16_PROBE
__attribute__((target("avx512f,avx512bf16"), noipa)) float bf16_dot_latency_chain(long iterations) {
  __m512 chain = _mm512_set1_ps(0.1f);
  const auto x = (__m512bh)_mm512_set1_epi16(0x3C00);
#pragma GCC unroll 1
  for (long i = 0; i < iterations; ++i) chain = _mm512_dpbf16_ps(chain, x, x);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, chain);
  return lanes[0];
}

// Bits read through volatile, so that the compiler folds none of the tries below.
volatile uint16_t subnormal_bf16 = 0x0001;   // 2^-133, the least bfloat16 subnormal
volatile uint16_t large_bf16 = 0x7180;       // 2^100
volatile uint16_t small_bf16 = 0x1C80;       // 2^-70
volatile float subnormal_float = 0x1p-130f;  // a float subnormal bfloat16 can hold (2^-130)

// What vdpbf16ps and vcvtneps2bf16 do with subnormals on this core, tried: each result is the
// exact one or zero.
__attribute__((target("avx512f,avx512bf16"))) inline __m512bh bf16(uint16_t bits) {
  return (__m512bh)_mm512_set1_epi16(static_cast<short>(bits));
}

__attribute__((target("avx512f,avx512bf16"), noipa)) Bf16Subnormals try_bf16_subnormals() {
  alignas(64) float lanes[16];
  // 2 × 2^-133 × 2^100 = 2^-32, a normal float: zero only where subnormal inputs read as zero.
  _mm512_store_ps(lanes,
                  _mm512_dpbf16_ps(_mm512_setzero_ps(), bf16(subnormal_bf16), bf16(large_bf16)));
  Bf16Subnormals found;
  found.dot_inputs_read_as_zero = lanes[0] == 0;
  // 2 × 2^-70 × 2^-70 = 2^-139, a subnormal float: zero only where subnormal results are flushed.
  _mm512_store_ps(lanes, _mm512_dpbf16_ps(_mm512_setzero_ps(), bf16(small_bf16), bf16(small_bf16)));
  found.dot_results_flushed = lanes[0] == 0;
  alignas(32) uint16_t converted[16];
  _mm256_store_si256(reinterpret_cast<__m256i*>(converted),
                     (__m256i)_mm512_cvtneps_pbh(_mm512_set1_ps(subnormal_float)));
  found.convert_flushed = (converted[0] & 0x7FFF) == 0;
  found.tried = true;
  return found;
}
#endif

// Best-of-`repetitions` rate of `work(n)` that does `units_per_n * n` units, growing n until one
// sample lasts `seconds`.
// Many short samples, not a few long ones: on a shared machine the best short sample is the one
// that had the core to itself.
template <typename Work>
double best_rate(Work work, double units_per_n, double sample_seconds, int repetitions,
                 volatile float& sink) {
  long n = 1;
  while (true) {
    auto start = Clock::now();
    sink = sink + work(n);
    if (seconds_since(start) >= sample_seconds || n > (1L << 40)) break;
    n *= 2;
  }
  double best = 0;
  for (int repetition = 0; repetition < repetitions; ++repetition) {
    auto start = Clock::now();
    sink = sink + work(n);
    best = std::max(best, units_per_n * static_cast<double>(n) / seconds_since(start));
  }
  return best;
}

__attribute__((noipa)) float triad(float* __restrict a, const float* __restrict b,
                                   const float* __restrict c, size_t count, long repeat) {
  for (long r = 0; r < repeat; ++r) {
    const Vector scale = splat(0.5f + static_cast<float>(r & 1));
#pragma GCC unroll 1
    for (size_t i = 0; i < count; i += kLanes) {
#ifdef __AVX512F__
      _mm512_storeu_ps(a + i, fma(_mm512_loadu_ps(c + i), scale, _mm512_loadu_ps(b + i)));
#else
      _mm256_storeu_ps(a + i, fma(_mm256_loadu_ps(c + i), scale, _mm256_loadu_ps(b + i)));
#endif
    }
  }
  return a[count / 2];
}

// The triad with non-temporal (streaming) stores: the written lines are not read first, so a
// kernel that streams its outputs moves fewer bytes per element than the plain triad pays for.
// `a` must be aligned to the vector width.
__attribute__((noipa)) float streaming_triad(float* __restrict a, const float* __restrict b,
                                             const float* __restrict c, size_t count, long repeat) {
  for (long r = 0; r < repeat; ++r) {
    const Vector scale = splat(0.5f + static_cast<float>(r & 1));
#pragma GCC unroll 1
    for (size_t i = 0; i < count; i += kLanes) {
#ifdef __AVX512F__
      _mm512_stream_ps(a + i, fma(_mm512_loadu_ps(c + i), scale, _mm512_loadu_ps(b + i)));
#else
      _mm256_stream_ps(a + i, fma(_mm256_loadu_ps(c + i), scale, _mm256_loadu_ps(b + i)));
#endif
    }
    _mm_sfence();
  }
  return a[count / 2];
}

// Sums one array: the read-only stream that read-heavy kernels (most of them) can reach, which a
// triad, paying for write-allocate, cannot show. Eight sums, so that in L1 two loads a cycle are
// not held back by the adds' latency.
__attribute__((noipa)) float read_stream(const float* __restrict a, size_t count, long repeat) {
  Vector totals[8];
  for (Vector& total : totals) total = splat(0);
  for (long r = 0; r < repeat; ++r) {
#pragma GCC unroll 1
    for (size_t i = 0; i + 8 * kLanes <= count; i += 8 * kLanes) {
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
#ifdef __AVX512F__
        totals[j] = add(totals[j], _mm512_loadu_ps(a + i + j * kLanes));
#else
        totals[j] = add(totals[j], _mm256_loadu_ps(a + i + j * kLanes));
#endif
      }
    }
  }
  Vector total = splat(0);
  for (const Vector& partial : totals) total = add(total, partial);
  return sum(total);
}

// A chain of dependent integer adds: one a cycle on every x86 core, so adds per second are the
// clock the core runs at now (virtual machines often hide cpufreq).
__attribute__((noipa)) long dependent_adds(long hundreds) {
  long value = 0;
  for (long i = 0; i < hundreds; ++i) {
    asm volatile(".rept 100\n\tadd $1, %0\n\t.endr" : "+r"(value));
  }
  return value;
}

double measured_clock_ghz() {
  constexpr long kHundreds = 20000;  // 2e6 adds, about 0.6 ms at 3.5 GHz
  double best = 0;
  for (int repetition = 0; repetition < 20; ++repetition) {
    auto start = Clock::now();
    dependent_adds(kHundreds);
    best = std::max(best, 100.0 * kHundreds / seconds_since(start) / 1e9);
  }
  return best;
}

// Floats aligned to 64 bytes, as streaming stores need.
class AlignedFloats {
 public:
  AlignedFloats(size_t count, float value)
      : data_(static_cast<float*>(std::aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64))) {
    if (!data_) throw InternalError("out of memory for the bandwidth probe");
    std::fill_n(data_, count, value);
  }
  ~AlignedFloats() { std::free(data_); }
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;
  float* data() { return data_; }

 private:
  float* data_;
};

// The bytes one call moves: its passes over `count` floats, `repeat` times.
double loop_bytes(const std::string& function, size_t count, long repeat) {
  const ProbeLoop& loop = probe_loop(function);
  return loop.work_per_pass() * static_cast<double>(count / loop.floats_per_pass) *
         static_cast<double>(repeat);
}

double read_gbytes_per_second(size_t working_set_bytes, const ProbeOptions& options,
                              volatile float& sink) {
  size_t count = std::max<size_t>(working_set_bytes / sizeof(float), 8 * kLanes);
  count = count / (8 * kLanes) * (8 * kLanes);
  std::vector<float> a(count, 1.0f);
  auto passes = [&](long repeat) { return read_stream(a.data(), count, repeat); };
  passes(1);
  return best_rate(passes, loop_bytes("read_stream", count, 1), options.sample_seconds,
                   options.repetitions / 4 + 3, sink) /
         1e9;
}

// a = b + s·c over three arrays filling the working set: 2 reads and 1 write per element, with
// ordinary or streaming stores.
double triad_gbytes_per_second(size_t working_set_bytes, bool streaming,
                               const ProbeOptions& options, volatile float& sink) {
  size_t count = std::max<size_t>(working_set_bytes / (3 * sizeof(float)), kLanes);
  count = count / kLanes * kLanes;
  AlignedFloats a(count, 0.0f), b(count, 1.0f), c(count, 2.0f);
  auto passes = [&](long repeat) {
    return streaming ? streaming_triad(a.data(), b.data(), c.data(), count, repeat)
                     : triad(a.data(), b.data(), c.data(), count, repeat);
  };
  double bytes_per_pass = loop_bytes(streaming ? "streaming_triad" : "triad", count, 1);
  passes(1);  // first touch
  return best_rate(passes, bytes_per_pass, options.sample_seconds, options.repetitions / 4 + 3,
                   sink) /
         1e9;
}

class PinnedTo {
 public:
  explicit PinnedTo(int cpu) {
    sched_getaffinity(0, sizeof(previous_), &previous_);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
  }
  ~PinnedTo() { sched_setaffinity(0, sizeof(previous_), &previous_); }
  PinnedTo(const PinnedTo&) = delete;
  PinnedTo& operator=(const PinnedTo&) = delete;

 private:
  cpu_set_t previous_;
};

}  // namespace

const std::vector<ProbeLoop>& probe_loops() {
  constexpr double kVectorBytes = kLanes * sizeof(float);
  static const std::vector<ProbeLoop> loops = {
    {"fma_chains", "vfmadd", kFmaChains, 2.0 * kLanes, 0},
    {"add_chains", "vaddps", kAddChains, kLanes, 0},
#if defined(ACCELOPT_HAS_BF16_PROBE)
    {"bf16_dot_chains", "vdpbf16ps", kDotChains, 64, 0},
    {"bf16_dot_latency_chain", "vdpbf16ps", 1, 64, 0},
#endif
    {"fma_latency_chain", "vfmadd", 1, 2.0 * kLanes, 0},
    // One FMA a pass reads a vector of b and c and writes one of a: 3 vectors of traffic.
    {"triad", "vfmadd", 1, 3 * kVectorBytes, kLanes},
    {"streaming_triad", "vmovntps", 1, 3 * kVectorBytes, kLanes},
    {"read_stream", "vaddps", 8, kVectorBytes, 8 * kLanes},
  };
  return loops;
}

const ProbeLoop& probe_loop(const std::string& function) {
  for (const ProbeLoop& loop : probe_loops()) {
    if (loop.function == function) return loop;
  }
  throw InternalError("no probe loop named " + function);
}

struct CeilingSampler::Buffers {
  size_t count = 0;  // floats in each of a, b, c
  AlignedFloats a, b, c;
  explicit Buffers(size_t floats)
      : count(floats), a(floats, 0.0f), b(floats, 1.0f), c(floats, 2.0f) {}
};

CeilingSampler::CeilingSampler(std::string bound, double working_set_bytes, int cpu,
                               double sample_seconds, bool bf16_dot)
    : bound_(std::move(bound)), cpu_(cpu) {
#if defined(ACCELOPT_HAS_BF16_PROBE)
  bf16_dot_ = bf16_dot && bound_ == "fma" && __builtin_cpu_supports("avx512bf16");
#else
  (void)bf16_dot;
#endif
  if (bound_ == "memory") {
    // Three arrays filling the working set, as the probe's triad at that size; the read stream
    // sweeps all three.
    size_t count =
        std::max<size_t>(static_cast<size_t>(working_set_bytes) / (3 * sizeof(float)), 8 * kLanes);
    buffers_ = std::make_unique<Buffers>(count / (8 * kLanes) * (8 * kLanes));
  }
  PinnedTo pinned(cpu_);
  volatile float sink = 0;
  // One of the sample's parts (three for memory) lasts a third of it.
  double part = bound_ == "memory" ? sample_seconds / 3 : sample_seconds;
  for (repeat_ = 1; repeat_ < (1L << 40); repeat_ *= 2) {
    auto start = Clock::now();
    if (bound_ == "fma") {
      sink = sink + matrix_chains(repeat_ * 64);
    } else if (bound_ == "vector") {
      sink = sink + add_chains(repeat_ * 64);
    } else {
      sink = sink + triad(buffers_->a.data(), buffers_->b.data(), buffers_->c.data(),
                          buffers_->count, repeat_);
    }
    if (seconds_since(start) >= part) break;
  }
}

CeilingSampler::~CeilingSampler() = default;

float CeilingSampler::matrix_chains(long iterations) const {
#if defined(ACCELOPT_HAS_BF16_PROBE)
  if (bf16_dot_) return bf16_dot_chains(iterations);
#endif
  return fma_chains(iterations);
}

void CeilingSampler::sample() {
  PinnedTo pinned(cpu_);
  volatile float sink = 0;
  auto rate = [](double units, Clock::time_point start) { return units / seconds_since(start); };
  if (bound_ == "fma" || bound_ == "vector") {
    long iterations = repeat_ * 64;
    auto start = Clock::now();
    sink = sink + (bound_ == "fma" ? matrix_chains(iterations) : add_chains(iterations));
    const char* loop = bound_ != "fma" ? "add_chains"
                       : bf16_dot_     ? "bf16_dot_chains"
                                       : "fma_chains";
    double flops_per_iteration = probe_loop(loop).work_per_pass();
    samples_.push_back(rate(flops_per_iteration * static_cast<double>(iterations), start) / 1e9);
    return;
  }
  Buffers& x = *buffers_;
  auto start = Clock::now();
  sink = sink + triad(x.a.data(), x.b.data(), x.c.data(), x.count, repeat_);
  double best = rate(loop_bytes("triad", x.count, repeat_), start);
  start = Clock::now();
  sink = sink + streaming_triad(x.a.data(), x.b.data(), x.c.data(), x.count, repeat_);
  best = std::max(best, rate(loop_bytes("streaming_triad", x.count, repeat_), start));
  start = Clock::now();
  for (float* array : {x.a.data(), x.b.data(), x.c.data()}) {
    sink = sink + read_stream(array, x.count, repeat_);
  }
  best = std::max(best, rate(3 * loop_bytes("read_stream", x.count, repeat_), start));
  samples_.push_back(best / 1e9);
}

CeilingAlongside CeilingSampler::result() const {
  CeilingAlongside result;
  result.bound = bound_;
  result.samples = static_cast<int>(samples_.size());
  if (samples_.empty()) return result;
  std::vector<double> sorted = samples_;
  std::sort(sorted.begin(), sorted.end());
  size_t middle = sorted.size() / 2;
  result.value =
      sorted.size() % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return result;
}

int timing_cpu() {
  // Of the cores this process may use: a worker pinned to a core times there.
  std::vector<int> cpus = allowed_cpus();
  return cpus.back();
}

std::vector<int> compile_cpus() {
  std::vector<int> cpus = allowed_cpus();
  if (cpus.size() > 1) cpus.pop_back();  // all but the timing core
  return cpus;
}

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      std::string model = line.substr(colon + 1);
      model.erase(0, model.find_first_not_of(' '));
      return model + " (" + kIsa + ", " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " cpus)";
    }
  }
  return std::string("unknown (") + kIsa + ")";
}

namespace {

// sysconf knows the cache sizes on glibc; sysfs is the fallback ("48K", "2048K", "32M").
long size_kib(const std::string& text) {
  if (text.empty()) return 0;
  try {
    long value = std::stol(text);
    return text.back() == 'M' ? value * 1024 : text.back() == 'G' ? value * 1024 * 1024 : value;
  } catch (const std::exception&) {
    return 0;
  }
}

long cache_kib(int name, const char* sysfs_index) {
  long bytes = sysconf(name);
  if (bytes > 0) return bytes / 1024;
  std::ifstream file(std::string("/sys/devices/system/cpu/cpu0/cache/") + sysfs_index + "/size");
  std::string text;
  return file >> text ? size_kib(text) : 0;
}

std::string read_word(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string text;
  std::getline(in, text);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

// "0-7,128-135" holds 16 CPUs.
int cpu_list_count(const std::string& list) {
  int count = 0;
  std::istringstream ranges(list);
  for (std::string range; std::getline(ranges, range, ',');) {
    size_t dash = range.find('-');
    try {
      count += dash == std::string::npos
                   ? 1
                   : std::stoi(range.substr(dash + 1)) - std::stoi(range.substr(0, dash)) + 1;
    } catch (const std::exception&) {
      return 0;
    }
  }
  return count;
}

std::string kib_text(long kib) {
  return kib >= 1024 && kib % 1024 == 0 ? fmt::format("{} MiB", kib / 1024)
                                        : fmt::format("{} KiB", kib);
}

}  // namespace

Microarchitecture identify_microarchitecture(const std::string& vendor, int family, int model) {
  auto in = [model](int low, int high) { return model >= low && model <= high; };
  const std::string full =
      "at full width (512-bit datapaths): AVX-512 does twice AVX2's work per "
      "instruction";
  const std::string halves =
      "as two 256-bit halves: AVX-512 brings its instructions, masks and 32 "
      "registers, but about AVX2's FLOPs per cycle";
  const std::string none = "not at all: no AVX-512 (256-bit AVX2 at most)";
  if (vendor == "AuthenticAMD") {
    if (family == 0x17) return {in(0x00, 0x2f) ? "AMD Zen / Zen+" : "AMD Zen 2", none};
    if (family == 0x19) {
      bool zen4 = in(0x10, 0x1f) || in(0x60, 0x7f) || in(0xa0, 0xaf);
      return zen4 ? Microarchitecture{"AMD Zen 4", halves} : Microarchitecture{"AMD Zen 3", none};
    }
    if (family == 0x1a) {
      if (in(0x00, 0x1f) || in(0x40, 0x4f)) return {"AMD Zen 5", full};  // Turin, Granite Ridge
      if (in(0x20, 0x2f)) return {"AMD Zen 5 (mobile)", halves};         // Strix Point
      return {"AMD Zen 5", "unknown"};
    }
  }
  if (vendor == "GenuineIntel" && family == 6) {
    const std::string two = full + "; two 512-bit FMA units on most server parts";
    const std::string one = full + "; one 512-bit FMA unit (ports 0 and 1 fused)";
    const std::string disabled = "not at all: AVX-512 is disabled on these hybrid parts";
    static const std::map<int, std::pair<const char*, int>> table = {
        {0x55, {"Intel Skylake-SP / Cascade Lake", 2}},
        {0x6a, {"Intel Ice Lake-SP", 2}},
        {0x6c, {"Intel Ice Lake-SP", 2}},
        {0x8f, {"Intel Sapphire Rapids", 2}},
        {0xcf, {"Intel Emerald Rapids", 2}},
        {0xad, {"Intel Granite Rapids", 2}},
        {0xae, {"Intel Granite Rapids", 2}},
        {0x7d, {"Intel Ice Lake", 1}},
        {0x7e, {"Intel Ice Lake", 1}},
        {0x8c, {"Intel Tiger Lake", 1}},
        {0x8d, {"Intel Tiger Lake", 1}},
        {0x97, {"Intel Alder Lake", 0}},
        {0x9a, {"Intel Alder Lake", 0}},
        {0xb7, {"Intel Raptor Lake", 0}},
        {0xba, {"Intel Raptor Lake", 0}},
        {0xbf, {"Intel Raptor Lake", 0}}};
    if (auto it = table.find(model); it != table.end()) {
      int units = it->second.second;
      return {it->second.first, units == 2 ? two : units == 1 ? one : disabled};
    }
  }
  return {};
}

// FLOPs a cycle, at most, by generation: FMA pipes × lanes × 2; vector adds on the add pipes;
// vdpbf16ps at most at the FMA's instruction rate, 4 FLOPs a float lane (the issue's
// measurement on Zen 4, and 128 on full-width Zen 5, measured: docs/harness.md). AMD's Software
// Optimization Guides for Zen 3-5, Intel's Optimization Reference Manual.
std::optional<IssueRates> documented_issue_rates(const std::string& microarchitecture) {
  static const std::map<std::string, IssueRates> table = {
      {"AMD Zen / Zen+", {16, 8, 0}},  // two 128-bit FMA pipes, two 128-bit add pipes
      {"AMD Zen 2", {32, 16, 0}},      // two 256-bit FMA pipes, two 256-bit add pipes
      {"AMD Zen 3", {32, 16, 0}},
      {"AMD Zen 4", {32, 16, 64}},   // 512-bit operations in two 256-bit halves
      {"AMD Zen 5", {64, 32, 128}},  // two 512-bit FMA pipes, two 512-bit add pipes
      {"AMD Zen 5 (mobile)", {32, 16, 64}},
      // Two 512-bit FMA units (ports 0+1 fused and 5); Cooper Lake shares Cascade Lake's model
      // number and has AVX-512 BF16.
      {"Intel Skylake-SP / Cascade Lake", {64, 32, 128}},
      {"Intel Ice Lake-SP", {64, 32, 0}},
      {"Intel Sapphire Rapids", {64, 32, 128}},
      {"Intel Emerald Rapids", {64, 32, 128}},
      {"Intel Granite Rapids", {64, 32, 128}},
      {"Intel Ice Lake", {32, 32, 0}},  // one 512-bit FMA unit
      {"Intel Tiger Lake", {32, 32, 0}},
      {"Intel Alder Lake", {32, 32, 0}},  // two 256-bit FMA units, AVX-512 disabled
      {"Intel Raptor Lake", {32, 32, 0}},
  };
  auto it = table.find(microarchitecture);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

namespace {

// Caps `measured` to what `per_cycle` FLOPs at `clock` allow, beyond `margin`; says why.
void refuse_above(double& measured, double per_cycle, const CoreClock& clock, double margin,
                  const std::string& ceiling, const std::string& generation,
                  std::vector<std::string>& refused) {
  double limit = per_cycle * clock.ghz;
  if (measured <= limit * (1 + margin)) return;
  std::string outcome = limit > 0 ? fmt::format("capped to that limit")
                                  : std::string("dropped: the generation has none");
  refused.push_back(fmt::format(
      "{} {:.1f} GFLOP/s refused: above the {:.1f} GFLOP/s one {} core can issue ({:.0f} FLOPs a "
      "cycle at {:.2f} GHz, {}) by more than {:.0f} %; the probe did not measure what it counts. "
      "{}",
      ceiling, measured, limit, generation, per_cycle, clock.ghz, clock.source, 100 * margin,
      outcome));
  measured = limit;
}

}  // namespace

void refuse_impossible_ceilings(MachinePeaks& peaks, const std::string& microarchitecture,
                                const IssueRates& rates, const CoreClock& clock, double margin) {
  if (clock.ghz <= 0) {
    peaks.issue_check = "not checked: the core's clock is not known";
    return;
  }
  peaks.issue_check = fmt::format(
      "checked against {}'s issue rates at {:.2f} GHz ({}): at most {:.1f} GFLOP/s FP32 FMA, "
      "{:.1f} other FP32 vector arithmetic, {:.1f} bfloat16 dot products, {:.0f} % margin",
      microarchitecture, clock.ghz, clock.source, rates.fma_flops_per_cycle * clock.ghz,
      rates.vector_flops_per_cycle * clock.ghz, rates.bf16_dot_flops_per_cycle * clock.ghz,
      100 * margin);
  refuse_above(peaks.fma_gflops, rates.fma_flops_per_cycle, clock, margin, "FP32 FMA",
               microarchitecture, peaks.refused);
  refuse_above(peaks.vector_gflops, rates.vector_flops_per_cycle, clock, margin,
               "other FP32 vector arithmetic", microarchitecture, peaks.refused);
  refuse_above(peaks.bf16_dot_gflops, rates.bf16_dot_flops_per_cycle, clock, margin,
               "bfloat16 dot products", microarchitecture, peaks.refused);
  peaks.narrow_matrix_gflops.erase("bfloat16");
  if (peaks.bf16_dot_gflops > 0) peaks.narrow_matrix_gflops["bfloat16"] = peaks.bf16_dot_gflops;
}

std::vector<CacheLevel> read_caches(const std::filesystem::path& cpu_root) {
  struct Seen {
    long size_kib = 0;
    std::set<std::string> instances;  // distinct shared_cpu_list values
    int shared_by = 0;
  };
  std::map<std::pair<int, std::string>, Seen> seen;
  std::error_code error;
  for (const auto& cpu : std::filesystem::directory_iterator(cpu_root, error)) {
    std::string name = cpu.path().filename().string();
    if (!name.starts_with("cpu") || name.size() == 3 ||
        !std::all_of(name.begin() + 3, name.end(), [](char c) { return std::isdigit(c); })) {
      continue;
    }
    std::error_code inner;
    for (const auto& index : std::filesystem::directory_iterator(cpu.path() / "cache", inner)) {
      if (!index.path().filename().string().starts_with("index")) continue;
      std::string type = read_word(index.path() / "type");
      std::string level = read_word(index.path() / "level");
      if (type == "Instruction" || level.empty()) continue;
      Seen& entry = seen[{std::atoi(level.c_str()), type}];
      entry.size_kib = size_kib(read_word(index.path() / "size"));
      std::string shared = read_word(index.path() / "shared_cpu_list");
      entry.instances.insert(shared);
      entry.shared_by = std::max(entry.shared_by, cpu_list_count(shared));
    }
  }
  std::vector<CacheLevel> caches;
  for (const auto& [key, entry] : seen) {
    if (entry.size_kib <= 0) continue;
    caches.push_back({key.first, key.second, entry.size_kib, entry.shared_by,
                      static_cast<int>(entry.instances.size())});
  }
  return caches;
}

std::string caches_text(const std::vector<CacheLevel>& caches) {
  std::string text;
  for (const CacheLevel& cache : caches) {
    std::string name = fmt::format("L{}{}", cache.level, cache.type == "Data" ? "d" : "");
    std::string sharing;
    if (cache.shared_by <= 0) {
      sharing = cache.level >= 3
                    ? " as the CPU reports it (which cores share it is not known here; "
                      "one core reaches at most its own group's part)"
                    : "";
    } else if (cache.shared_by == 1) {
      sharing = " per logical CPU";
    } else {
      sharing = fmt::format(" per group of {} logical CPUs", cache.shared_by);
      if (cache.instances > 1) {
        sharing += fmt::format(" ({} groups, {} in all)", cache.instances,
                               kib_text(cache.size_kib * cache.instances));
      }
    }
    text += (text.empty() ? "" : "; ") + name + " " + kib_text(cache.size_kib) + sharing;
  }
  return text.empty() ? "unknown" : text;
}

CpuDescription describe_cpu() {
  CpuDescription cpu;
  cpu.model_name = "unknown";
  std::ifstream cpuinfo("/proc/cpuinfo");
  // The first processor's block: every core of a machine is the same model.
  for (std::string line; std::getline(cpuinfo, line) && !line.empty();) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    if (key == "model name" && !value.empty()) cpu.model_name = value;
    if (key == "vendor_id") cpu.vendor = value;
    if (key == "cpu family") cpu.family = std::atoi(value.c_str());
    if (key == "model") cpu.model = std::atoi(value.c_str());
  }
  cpu.microarchitecture = identify_microarchitecture(cpu.vendor, cpu.family, cpu.model);
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    cpu.isa = "AVX-512", cpu.vector_bits = 512;
  } else if (__builtin_cpu_supports("avx2")) {
    cpu.isa = "AVX2", cpu.vector_bits = 256;
  } else if (__builtin_cpu_supports("avx")) {
    cpu.isa = "AVX", cpu.vector_bits = 256;
  } else {
    cpu.isa = "SSE", cpu.vector_bits = 128;
  }
  cpu.fma = __builtin_cpu_supports("fma") != 0;
  cpu.cores = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  cpu.l1d_kib = cache_kib(_SC_LEVEL1_DCACHE_SIZE, "index0");
  cpu.l2_kib = cache_kib(_SC_LEVEL2_CACHE_SIZE, "index2");
  cpu.l3_kib = cache_kib(_SC_LEVEL3_CACHE_SIZE, "index3");
  cpu.caches = read_caches("/sys/devices/system/cpu");
  if (cpu.caches.empty()) {
    if (cpu.l1d_kib > 0) cpu.caches.push_back({1, "Data", cpu.l1d_kib, 0, 0});
    if (cpu.l2_kib > 0) cpu.caches.push_back({2, "Unified", cpu.l2_kib, 0, 0});
    if (cpu.l3_kib > 0) cpu.caches.push_back({3, "Unified", cpu.l3_kib, 0, 0});
  }
  return cpu;
}

Json MachinePeaks::to_json() const {
  Json json = {{"cpu_model", cpu_model}, {"isa", isa}};
  write_json(json);
  json["bf16_dot_gflops"] = bf16_dot_gflops;
  json["probed_at"] = probed_at;
  json["probe_seconds"] = probe_seconds;
  json["issue_check"] = issue_check;
  json["refused"] = refused;
  json["clock_ghz"] = clock_ghz;
  json["fma_latency_ns"] = fma_latency_ns;
  json["bf16_dot_latency_ns"] = bf16_dot_latency_ns;
  if (bf16_subnormals.tried) {
    json["bf16_subnormals"] = {{"dot_inputs_read_as_zero", bf16_subnormals.dot_inputs_read_as_zero},
                               {"dot_results_flushed", bf16_subnormals.dot_results_flushed},
                               {"convert_flushed", bf16_subnormals.convert_flushed}};
  }
  return json;
}

bool MachinePeaks::matrix_ceiling_is_bf16_dot(const task::Task& task) const {
  return narrow_matrix_dtype(task) == "bfloat16";
}

MachinePeaks MachinePeaks::from_json(const Json& json) {
  MachinePeaks peaks;
  static_cast<Peaks&>(peaks) = Peaks::from_json(json, CeilingScope::kOneCore);
  peaks.cpu_model = json.value("cpu_model", "");
  peaks.isa = json.value("isa", "");
  peaks.bf16_dot_gflops = json.value("bf16_dot_gflops", 0.0);
  if (peaks.bf16_dot_gflops > 0) peaks.narrow_matrix_gflops["bfloat16"] = peaks.bf16_dot_gflops;
  peaks.probed_at = json.value("probed_at", "");
  peaks.probe_seconds = json.value("probe_seconds", 0.0);
  peaks.issue_check = json.value("issue_check", "");
  peaks.refused = json.value("refused", std::vector<std::string>{});
  peaks.clock_ghz = json.value("clock_ghz", 0.0);
  peaks.fma_latency_ns = json.value("fma_latency_ns", 0.0);
  peaks.bf16_dot_latency_ns = json.value("bf16_dot_latency_ns", 0.0);
  if (json.contains("bf16_subnormals")) {
    const Json& found = json["bf16_subnormals"];
    peaks.bf16_subnormals.tried = true;
    peaks.bf16_subnormals.dot_inputs_read_as_zero = found.value("dot_inputs_read_as_zero", false);
    peaks.bf16_subnormals.dot_results_flushed = found.value("dot_results_flushed", false);
    peaks.bf16_subnormals.convert_flushed = found.value("convert_flushed", false);
  }
  return peaks;
}

namespace {

// One round of the arithmetic ceilings, each kept if better than the rounds before.
void probe_arithmetic(MachinePeaks& peaks, double sample_seconds, int repetitions,
                      volatile float& sink) {
  auto best = [&](auto work, const char* loop) {
    return best_rate(work, probe_loop(loop).work_per_pass(), sample_seconds, repetitions, sink) /
           1e9;
  };
  // A chain's best rate is its shortest latency: nanoseconds an instruction.
  auto latency_ns = [&](auto work) {
    return 1e9 / best_rate(work, 1.0, sample_seconds, repetitions, sink);
  };
  auto least = [](double kept, double now) { return kept > 0 ? std::min(kept, now) : now; };
  peaks.fma_gflops = std::max(peaks.fma_gflops, best(fma_chains, "fma_chains"));
  peaks.vector_gflops = std::max(peaks.vector_gflops, best(add_chains, "add_chains"));
  peaks.fma_latency_ns = least(peaks.fma_latency_ns, latency_ns(fma_latency_chain));
#ifdef ACCELOPT_HAS_BF16_PROBE
  if (__builtin_cpu_supports("avx512bf16")) {
    peaks.bf16_dot_gflops =
        std::max(peaks.bf16_dot_gflops, best(bf16_dot_chains, "bf16_dot_chains"));
    peaks.bf16_dot_latency_ns =
        least(peaks.bf16_dot_latency_ns, latency_ns(bf16_dot_latency_chain));
    peaks.bf16_subnormals = bf16_subnormals_of_this_cpu();
  }
#endif
}

// cpufreq's maximum where sysfs has it; else the fastest clock the rounds measured.
CoreClock core_clock(double measured_ghz) {
  std::string khz = read_word("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double max_ghz = khz.empty() ? 0 : std::atof(khz.c_str()) / 1e6;
  if (max_ghz > 0) return {max_ghz, "cpuinfo_max_freq"};
  return {measured_ghz, "measured"};
}

// The figures checked against the core's issue rates where its generation is known.
void check_against_issue_rates(MachinePeaks& peaks, double measured_ghz) {
  std::string generation = describe_cpu().microarchitecture.name;
  std::optional<IssueRates> rates = documented_issue_rates(generation);
  if (!rates) {
    peaks.issue_check =
        "not checked: no documented issue rates for this CPU's generation (" + generation + ")";
    return;
  }
  refuse_impossible_ceilings(peaks, generation, *rates, core_clock(measured_ghz));
}

}  // namespace

Bf16Subnormals bf16_subnormals_of_this_cpu() {
#ifdef ACCELOPT_HAS_BF16_PROBE
  if (__builtin_cpu_supports("avx512bf16")) return try_bf16_subnormals();
#endif
  return {};
}

MachinePeaks probe_machine(const ProbeOptions& options) {
  auto start = Clock::now();
  PinnedTo pinned(options.cpu >= 0 ? options.cpu : timing_cpu());
  volatile float sink = 0;
  MachinePeaks peaks;
  peaks.cpu_model = cpu_model_name();
  peaks.isa = kIsa;
  // From 4 KiB, well inside L1, so the small workloads meet an L1 ceiling.
  for (size_t size = 4u << 10; size <= (256u << 20); size *= 2) {
    peaks.bandwidth.push_back({static_cast<double>(size), 0});
  }
  int rounds = std::max(options.rounds, 1);
  ProbeOptions round_options = options;
  round_options.repetitions = std::max(options.repetitions / rounds, 1);
  double clock_ghz = 0;
  for (int round = 0; round < rounds; ++round) {
    probe_arithmetic(peaks, options.sample_seconds, round_options.repetitions, sink);
    clock_ghz = std::max(clock_ghz, measured_clock_ghz());
    // The ceiling at each size is the best of a triad, the same with streaming stores, and a
    // read-only stream: kernels that mostly read reach the last, kernels that stream their
    // outputs the second, and a roofline must not sit below what a kernel can reach.
    for (BandwidthPoint& point : peaks.bandwidth) {
      auto size = static_cast<size_t>(point.working_set_bytes);
      double triad = triad_gbytes_per_second(size, false, round_options, sink);
      double streaming = triad_gbytes_per_second(size, true, round_options, sink);
      double read = read_gbytes_per_second(size, round_options, sink);
      point.gbytes_per_second = std::max({point.gbytes_per_second, triad, streaming, read});
    }
  }
  // Bandwidth cannot rise with the working set. A sample that reads low (a busy moment, a tiny
  // array's loop overhead) takes the figure of the larger set after it: a ceiling may be loose,
  // never below what a kernel reaches.
  for (size_t i = peaks.bandwidth.size() - 1; i-- > 0;) {
    peaks.bandwidth[i].gbytes_per_second =
        std::max(peaks.bandwidth[i].gbytes_per_second, peaks.bandwidth[i + 1].gbytes_per_second);
  }
  check_against_issue_rates(peaks, clock_ghz);
  peaks.clock_ghz = clock_ghz;
  if (peaks.bf16_dot_gflops > 0) peaks.narrow_matrix_gflops["bfloat16"] = peaks.bf16_dot_gflops;
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  peaks.probed_at = stamp;
  peaks.probe_seconds = seconds_since(start);
  return peaks;
}

MachinePeaks load_or_probe_machine(bool force, std::ostream* progress) {
  std::filesystem::path file = cache_directory() / "machine.json";
  std::string model = cpu_model_name();
  if (!force && std::filesystem::exists(file)) {
    Json json = Json::parse(read_file(file), nullptr, false);
    if (!json.is_discarded() && json.value("cpu_model", "") == model &&
        json.value("probe_version", 0) == kProbeVersion) {
      return MachinePeaks::from_json(json);
    }
  }
  if (progress)
    *progress << "Probing this machine's peaks (once per CPU model, a few seconds)...\n";
  MachinePeaks peaks = probe_machine({});
  if (progress) {
    for (const std::string& refusal : peaks.refused) *progress << "Refused: " << refusal << "\n";
  }
  Json json = peaks.to_json();
  json["probe_version"] = kProbeVersion;
  write_file_atomic(file, json.dump(2) + "\n");
  return peaks;
}

}  // namespace accelopt::platform::cpu
