#include "platform/cpu/inputs.h"

#include <sys/mman.h>
#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "platform/case_variation.h"
#include "task/safetensors.h"

namespace accelopt::platform::cpu {
namespace {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1), never 0, so that log() is finite.
  double uniform() {
    return (static_cast<double>(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  }

 private:
  uint64_t state_;
};

// The standard normal by the ziggurat method (Marsaglia and Tsang 2000, in the form of Doornik,
// "An improved ziggurat method to generate normal random samples", 2005): 128 layers of equal
// area under the density; 98.8 % of values cost one 64-bit draw, a compare and a multiply, the
// rest come from a layer's wedge or the tail. Box-Muller cost a log, a square root and a cosine
// per value: drawing a CPU workload's 15 M-element tensors took seconds (docs/harness.md,
// "Checks inside timed turns: cost").
class Ziggurat {
 public:
  Ziggurat() {
    double f = std::exp(-0.5 * kTail * kTail);
    x_[0] = kArea / f;  // the bottom layer, tail included, as a rectangle of the same area
    x_[1] = kTail;
    x_[kLayers] = 0;
    for (int i = 2; i < kLayers; ++i) {
      x_[i] = std::sqrt(-2 * std::log(kArea / x_[i - 1] + f));
      f = std::exp(-0.5 * x_[i] * x_[i]);
    }
    for (int i = 0; i < kLayers; ++i) inner_[i] = x_[i + 1] / x_[i];
  }

  double normal(SplitMix64& random) const {
    while (true) {
      uint64_t bits = random.next();
      int layer = static_cast<int>(bits & (kLayers - 1));
      double u = 2 * ((static_cast<double>(bits >> 11) + 0.5) * 0x1p-53) - 1;  // (-1, 1)
      // Inside the layer's rectangle, under the density for sure.
      if (std::fabs(u) < inner_[layer]) return u * x_[layer];
      if (layer == 0) return tail(random, u < 0);
      // In the wedge: under the density with the density's probability.
      double x = u * x_[layer];
      double above = std::exp(-0.5 * (x_[layer] * x_[layer] - x * x));
      double below = std::exp(-0.5 * (x_[layer + 1] * x_[layer + 1] - x * x));
      if (below + random.uniform() * (above - below) < 1.0) return x;
    }
  }

 private:
  static constexpr int kLayers = 128;
  static constexpr double kTail = 3.442619855899;       // where the bottom layer's tail starts
  static constexpr double kArea = 9.91256303526217e-3;  // each layer's area
  // Beyond kTail (Marsaglia 1964).
  static double tail(SplitMix64& random, bool negative) {
    double x = 0, y = 0;
    do {
      x = std::log(random.uniform()) / kTail;
      y = std::log(random.uniform());
    } while (-2 * y < x * x);
    return negative ? x - kTail : kTail - x;
  }
  std::array<double, kLayers + 1> x_{};  // the layers' right edges, widest first
  std::array<double, kLayers> inner_{};  // the share of each layer under the next one
};

double draw(const task::InputDistribution& d, SplitMix64& random) {
  static const Ziggurat ziggurat;  // constant tables, built once
  switch (d.kind) {
    case task::Distribution::kConstant:
      return d.value;
    case task::Distribution::kUniform:
      return d.low + (d.high - d.low) * random.uniform();
    case task::Distribution::kInteger:
      // uniform() < 1, so the floor stays below high.
      return std::floor(d.low + (d.high - d.low) * random.uniform());
    case task::Distribution::kOffsets:
      throw InternalError("an offsets tensor is drawn whole (draw_offsets), not value by value");
    case task::Distribution::kNormal:
    case task::Distribution::kAbsNormal:
      break;
  }
  double value = d.mean + d.std * ziggurat.normal(random);
  return d.kind == task::Distribution::kAbsNormal ? std::fabs(value) : value;
}

// The cumulative probability of `d` at `x` (normal, |normal| and uniform only).
double cumulative(const task::InputDistribution& d, double x) {
  auto phi = [&](double v) { return 0.5 * std::erfc(-(v - d.mean) / (d.std * std::sqrt(2.0))); };
  switch (d.kind) {
    case task::Distribution::kNormal:
      return phi(x);
    case task::Distribution::kAbsNormal:
      return x <= 0 ? 0 : phi(x) - phi(-x);
    case task::Distribution::kUniform:
      return std::clamp((x - d.low) / (d.high - d.low), 0.0, 1.0);
    default:
      throw InternalError("cumulative: a distribution without a density");
  }
}

// Draws of a 1-byte float type (float8_e4m3fn) with the distribution that drawing from `d` in
// float64 and rounding has (to nearest even, saturating), without drawing or rounding: each of
// the byte's values gets the probability of the interval that rounds to it, and a draw is one
// 64-bit number through Walker's alias table (Vose's construction). A normal and a rounding a
// value cost most of an evaluation of the MoE's 1.41 G float8 weights.
class ByteSampler {
 public:
  // Only normal, |normal| and uniform distributions with a positive width.
  static bool applies(task::DType dtype, const task::InputDistribution& d) {
    bool dense = (d.kind == task::Distribution::kNormal && d.std > 0) ||
                 (d.kind == task::Distribution::kAbsNormal && d.std > 0) ||
                 (d.kind == task::Distribution::kUniform && d.high > d.low);
    return dense && task::dtype_size(dtype) == 1 && task::is_narrow_float(dtype);
  }

  ByteSampler(task::DType dtype, const task::InputDistribution& d) {
    // Every value but the NaNs, in order, -0 just below +0: rounding keeps the sign of a zero.
    std::vector<std::pair<float, uint8_t>> values;
    for (int bits = 0; bits < 256; ++bits) {
      auto byte = static_cast<uint8_t>(bits);
      float value = 0;
      task::decode_values(dtype, &byte, 1, &value);
      if (!std::isnan(value)) values.emplace_back(value, byte);
    }
    std::sort(values.begin(), values.end(), [](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first < b.first;
      return std::signbit(a.first) && !std::signbit(b.first);
    });
    std::vector<double> probability;
    double below = 0;  // the cumulative probability at the interval's lower edge
    for (size_t i = 0; i < values.size(); ++i) {
      double edge = i + 1 == values.size()
                        ? 1.0
                        : cumulative(d, (static_cast<double>(values[i].first) +
                                         static_cast<double>(values[i + 1].first)) /
                                            2);
      probability.push_back(std::max(edge - below, 0.0));
      bytes_.push_back(values[i].second);
      below = std::max(below, edge);
    }
    build_alias(probability);
  }

  uint8_t draw(SplitMix64& random) const {
    uint64_t bits = random.next();
    size_t column = static_cast<size_t>(((bits >> 32) * bytes_.size()) >> 32);
    double u = static_cast<double>(bits & 0xFFFFFFFFu) * 0x1p-32;
    return u < keep_[column] ? bytes_[column] : bytes_[alias_[column]];
  }

 private:
  void build_alias(std::vector<double> probability) {
    size_t n = probability.size();
    double total = 0;
    for (double p : probability) total += p;
    std::vector<size_t> small, large;
    for (size_t i = 0; i < n; ++i) {
      probability[i] *= static_cast<double>(n) / total;
      (probability[i] < 1 ? small : large).push_back(i);
    }
    keep_.assign(n, 1.0);
    alias_.resize(n);
    for (size_t i = 0; i < n; ++i) alias_[i] = i;
    while (!small.empty() && !large.empty()) {
      size_t less = small.back(), more = large.back();
      small.pop_back();
      keep_[less] = probability[less];
      alias_[less] = more;
      probability[more] -= 1 - probability[less];
      if (probability[more] < 1) {
        large.pop_back();
        small.push_back(more);
      }
    }
  }

  std::vector<uint8_t> bytes_;
  std::vector<double> keep_;  // the chance a column keeps its own value
  std::vector<size_t> alias_;
};

// A uniform draw in [low, high) from getrandom(2).
double secret_uniform(double low, double high) {
  return low + (high - low) * static_cast<double>(secret_seed() >> 11) * 0x1p-53;
}

// `d` varied as `variation` says (inputs.h).
task::InputDistribution varied(task::InputDistribution d, const Variation& variation) {
  switch (d.kind) {
    case task::Distribution::kConstant:
    case task::Distribution::kInteger:  // indices keep their range: it is what makes them valid
    case task::Distribution::kOffsets:  // and offsets their structure
      break;
    case task::Distribution::kNormal:
      d.mean += variation.shift * d.std;
      d.std *= variation.spread;
      break;
    case task::Distribution::kAbsNormal:
      d.std *= variation.spread;
      break;
    case task::Distribution::kUniform: {
      double width = (d.high - d.low) * std::clamp(variation.width, 0.0, 1.0);
      d.low += (d.high - d.low - width) * std::clamp(variation.shift + 0.5, 0.0, 1.0);
      d.high = d.low + width;
      break;
    }
  }
  return d;
}

// An offsets tensor of `length` elements (task.h): 0, then steps of at least max(min_step, the
// `lower` tensor's step), the rest of the total spread over the steps at sorted random cut points.
std::vector<float> draw_offsets(const task::InputDistribution& d, size_t length,
                                const std::vector<float>* lower, SplitMix64& random) {
  size_t steps = length - 1;
  std::vector<int64_t> least(steps, d.min_step);
  int64_t slack = static_cast<int64_t>(d.total);
  for (size_t i = 0; i < steps; ++i) {
    if (lower != nullptr) {
      int64_t below = static_cast<int64_t>((*lower)[i + 1]) - static_cast<int64_t>((*lower)[i]);
      least[i] = std::max(least[i], below);
    }
    slack -= least[i];
  }
  // Loading the task checked that the total is reachable on its workloads.
  if (slack < 0 || (steps == 0 && slack != 0)) {
    throw UserError("an offsets tensor cannot reach its total " +
                    std::to_string(static_cast<int64_t>(d.total)) + " in " + std::to_string(steps) +
                    " steps of at least " + std::to_string(d.min_step) +
                    (d.not_below.empty() ? "" : " and " + d.not_below + "'s"));
  }
  std::vector<int64_t> cuts(steps > 0 ? steps - 1 : 0);
  for (int64_t& cut : cuts) {
    double place = std::floor(random.uniform() * static_cast<double>(slack + 1));
    cut = std::min(static_cast<int64_t>(place), slack);
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<float> offsets(length, 0.0f);
  int64_t at = 0, previous_cut = 0;
  for (size_t i = 0; i < steps; ++i) {
    int64_t cut = i < cuts.size() ? cuts[i] : slack;
    at += least[i] + (cut - previous_cut);
    previous_cut = cut;
    offsets[i + 1] = static_cast<float>(at);  // at most 2^24: exact
  }
  return offsets;
}

// Definition order, but each offsets input after the one its steps are bounded by (not_below).
std::vector<size_t> draw_order(const task::Task& task) {
  auto index_of = [&](const std::string& name) {
    for (size_t i = 0; i < task.inputs.size(); ++i) {
      if (task.inputs[i].name == name) return i;
    }
    throw InternalError("no input " + name);
  };
  std::vector<size_t> order;
  std::vector<bool> placed(task.inputs.size(), false);
  // Loading the task checked that no chain of not_below goes round, so each pass places one more.
  while (order.size() < task.inputs.size()) {
    size_t before = order.size();
    for (size_t i = 0; i < task.inputs.size(); ++i) {
      const std::string& below = task.inputs[i].distribution.not_below;
      if (placed[i] || (!below.empty() && !placed[index_of(below)])) continue;
      placed[i] = true;
      order.push_back(i);
    }
    if (order.size() == before) throw InternalError("not_below goes round in a circle");
  }
  return order;
}

// `bytes` bytes of zeros in `into`, on huge pages where the kernel gives them: a case of a CPU
// workload is tens of megabytes, and drawing one spent most of its time in page faults, one per
// 4 KiB page (this virtual machine's faults are dear: `perf`, docs/harness.md).
void resize_on_huge_pages(std::vector<unsigned char>& into, size_t bytes) {
  into.reserve(bytes);
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  auto start = reinterpret_cast<uintptr_t>(into.data());
  uintptr_t begin = (start + kHugePage - 1) & ~(kHugePage - 1);
  uintptr_t end = (start + bytes) & ~(kHugePage - 1);
  // Advice only: where it is refused the pages are small, as before.
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  into.resize(bytes);
}

CaseSpec secret_case(const std::string& set, size_t number) {
  CaseSpec spec;
  spec.set = set;
  spec.seed = secret_seed();
  spec.label = "case " + std::to_string(number) + (set.empty() ? "" : " (input set '" + set + "')");
  return spec;
}

}  // namespace

void require_supported_dtypes(const task::Task& task) {
  for (const auto* list : {&task.inputs, &task.outputs}) {
    for (const task::TensorSpec& spec : *list) {
      if (spec.dtype != task::DType::kFloat64) continue;
      throw UserError("task " + task.name + ": tensor '" + spec.name +
                      "' is float64; the CPU harness runs float32, bfloat16, float16, "
                      "float8_e4m3fn, int8 and int32 tensors");
    }
  }
}

uint64_t secret_seed() {
  uint64_t seed = 0;
  auto* bytes = reinterpret_cast<char*>(&seed);
  size_t got = 0;
  while (got < sizeof(seed)) {
    ssize_t n = ::getrandom(bytes + got, sizeof(seed) - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InternalError(errno_message("getrandom"));
    got += static_cast<size_t>(n);
  }
  return seed;
}

namespace {

// The task's own distributions with the wider spread of its first normal input (2x to 4x the std,
// as real activations and scores have).
void widen(CaseSpec& spec) {
  const platform::CaseVariationRanges& ranges = platform::kCaseVariation;
  spec.variation.spread =
      std::exp(secret_uniform(std::log(ranges.wide_spread.low), std::log(ranges.wide_spread.high)));
  spec.label += " (wider spread)";
}

// Input set `set`'s case number `index` (0 first): its normals only spread wider (a set of large
// values stays large), its uniforms keep half their range or more, and a normal's mean moves by up
// to half a std; the first as the set says, the others mixed with the task's own distributions.
void vary_within_set(CaseSpec& spec, int index) {
  const platform::CaseVariationRanges& ranges = platform::kCaseVariation;
  spec.variation.spread = secret_uniform(ranges.set_spread.low, ranges.set_spread.high);
  spec.variation.width = secret_uniform(ranges.set_width.low, ranges.set_width.high);
  spec.variation.shift = secret_uniform(ranges.set_shift.low, ranges.set_shift.high);
  spec.variation.fraction =
      index == 0 ? 1.0 : secret_uniform(ranges.set_fraction.low, ranges.set_fraction.high);
}

}  // namespace

std::vector<CaseSpec> correctness_cases(const task::Task& task) {
  // The ranges are platform::kCaseVariation's, which the agents' prompt describes.
  const platform::CaseVariationRanges& ranges = platform::kCaseVariation;
  std::vector<CaseSpec> cases;
  for (int i = 0; i < task.seeds; ++i) {
    cases.push_back(secret_case("", cases.size() + 1));
    if (task.seeds >= ranges.seeds_for_wide_case && i == task.seeds - 1) widen(cases.back());
  }
  for (const task::InputSet& set : task.input_sets) {
    for (int i = 0; i < set.seeds; ++i) {
      CaseSpec spec = secret_case(set.name, cases.size() + 1);
      vary_within_set(spec, i);
      cases.push_back(spec);
    }
  }
  return cases;
}

std::vector<CaseSpec> timing_cases(const task::Task& task, int count) {
  std::vector<CaseSpec> cases;
  for (int i = 0; i < count; ++i) cases.push_back(secret_case("", cases.size() + 1));
  // Every edge-case family too (issue 44): timed inputs are mixed from these in blocks, each
  // tensor's from its own draw of the pool, so a timed call meets the families' values, and one
  // tensor's family beside another's own distribution.
  cases.push_back(secret_case("", cases.size() + 1));
  widen(cases.back());
  for (const task::InputSet& set : task.input_sets) {
    cases.push_back(secret_case(set.name, cases.size() + 1));
    vary_within_set(cases.back(), 0);
  }
  for (CaseSpec& spec : cases) spec.label = "timing " + spec.label;
  return cases;
}

std::vector<CaseSpec> chosen_cases(const std::vector<uint64_t>& seeds, const std::string& set) {
  std::vector<CaseSpec> cases;
  for (uint64_t seed : seeds) {
    cases.push_back(
        {set, seed, "seed " + std::to_string(seed) + (set.empty() ? "" : " of " + set), {}});
  }
  return cases;
}

namespace {

// Throws UserError naming the first constraint that reads inputs and fails on `tensors`.
void check_drawn_constraints(const task::Task& task, const task::Workload& workload,
                             const std::vector<task::TensorValues>& tensors,
                             const task::InputSet* set) {
  for (const task::Constraint& constraint : task.constraints) {
    if (constraint.reads.empty()) continue;
    std::map<std::string, double> values;
    for (const auto& [axis, value] : workload.axes) values[axis] = static_cast<double>(value);
    for (const task::ElementRead& read : constraint.reads) {
      size_t input = 0;
      while (task.inputs[input].name != read.tensor) ++input;  // load_task checked the name
      auto count = static_cast<int64_t>(tensors[input].count());
      int64_t index = read.index < 0 ? count + read.index : read.index;
      if (index < 0 || index >= count) {
        throw InternalError("check_drawn_constraints: " + task::element_name(read) + " of " +
                            std::to_string(count));
      }
      values[task::element_name(read)] = tensors[input].at(static_cast<size_t>(index));
    }
    double left = 0, right = 0;
    if (!task::constraint_holds(constraint, values, &left, &right)) {
      std::string inputs;
      for (const task::ElementRead& read : constraint.reads) {
        inputs += (inputs.empty() ? "" : ", ") + read.tensor;
      }
      throw UserError(fmt::format(
          "the inputs drawn for workload '{}'{} break the constraint \"{}\" ({} is {:g}, {} is "
          "{:g}): give {} a distribution that keeps it in definition.json (an indptr ending at an "
          "axis: \"offsets\" with that \"total\"; docs/task-format.md)",
          workload.name, set == nullptr ? "" : " (input set '" + set->name + "')", constraint.text,
          constraint.left, left, constraint.right, right, inputs));
    }
  }
}

// Input `index` as generate_inputs draws it. `tensors` holds the inputs drawn before it
// (draw_order); `widened` says whether the case's wider spread went to an earlier input, and
// becomes true once it goes to this one.
task::TensorValues draw_input(const task::Task& task, const task::Workload& workload, size_t index,
                              uint64_t seed, const task::InputSet* set, const Variation& variation,
                              bool& widened, const std::vector<task::TensorValues>& tensors) {
  const task::TensorSpec& spec = task.inputs[index];
  SplitMix64 random(seed * 0x100000001B3ull + (index + 1) * 0x9E3779B97F4A7C15ull);
  size_t elements = static_cast<size_t>(task.element_count(spec, workload));
  if (auto file = workload.file_inputs.find(spec.name); file != workload.file_inputs.end()) {
    // The workload's own data, the same in every case (load_task checked its dtype and shape).
    return {spec.dtype, task::read_safetensors_tensor(file->second.file, file->second.key)};
  }
  task::InputDistribution own = task::for_workload(spec.distribution, workload);
  if (own.kind == task::Distribution::kOffsets) {  // the task's own, whole, in every case
    std::vector<float> lower;
    for (size_t other = 0; other < task.inputs.size(); ++other) {
      if (task.inputs[other].name == own.not_below) lower = tensors[other].floats();
    }
    return task::TensorValues::encode(
        spec.dtype, draw_offsets(own, elements, own.not_below.empty() ? nullptr : &lower, random));
  }
  const task::InputDistribution* named = nullptr;
  task::InputDistribution named_here;
  if (set != nullptr) {
    if (auto found = set->inputs.find(spec.name); found != set->inputs.end()) {
      named_here = task::for_workload(found->second, workload);
      named = &named_here;
    }
  }
  // The set's distribution where it names this input (the task's own for the rest of a mix),
  // varied; else the task's own, varied only for the task's own cases and only on its first
  // normal input: widening every input of an attention widened its scores by the square, past
  // what the task's tolerance is for (the baseline failed).
  bool normal =
      own.kind == task::Distribution::kNormal || own.kind == task::Distribution::kAbsNormal;
  bool widen = set == nullptr && normal && !widened;
  widened = widened || widen;
  task::InputDistribution chosen = named != nullptr ? varied(*named, variation)
                                   : widen          ? varied(own, variation)
                                                    : own;
  double fraction = named != nullptr ? variation.fraction : 1.0;
  // Drawn in float64, then rounded to the tensor's type: what the kernel reads is exact. A block
  // at a time into the tensor's own bytes, so a tensor is never held as floats whole (1.4 G
  // float8 weights would be 5.6 GB); the narrow float types round from float, many at once.
  std::vector<unsigned char> bytes;
  resize_on_huge_pages(bytes, elements * task::dtype_size(spec.dtype));
  if (ByteSampler::applies(spec.dtype, chosen) && ByteSampler::applies(spec.dtype, own)) {
    ByteSampler from_chosen(spec.dtype, chosen), from_own(spec.dtype, own);
    for (unsigned char& byte : bytes) {
      bool from_set = fraction >= 1 || random.uniform() < fraction;
      byte = (from_set ? from_chosen : from_own).draw(random);
    }
    return {spec.dtype, std::move(bytes)};
  }
  bool narrow_float = task::is_narrow_float(spec.dtype);
  constexpr size_t kBlock = 4096;
  float block[kBlock];
  for (size_t start = 0; start < elements; start += kBlock) {
    size_t count = std::min(kBlock, elements - start);
    for (size_t i = 0; i < count; ++i) {
      bool from_set = fraction >= 1 || random.uniform() < fraction;
      double drawn = draw(from_set ? chosen : own, random);
      // float32 and the narrow floats round from float (encode_values rounds the latter).
      block[i] = narrow_float || spec.dtype == task::DType::kFloat32
                     ? static_cast<float>(drawn)
                     : task::round_to_dtype(spec.dtype, drawn);
    }
    task::encode_values(spec.dtype, block, count,
                        bytes.data() + start * task::dtype_size(spec.dtype));
  }
  return {spec.dtype, std::move(bytes)};
}

}  // namespace

bool has_constant_inputs(const task::Task& task) {
  return std::any_of(task.inputs.begin(), task.inputs.end(),
                     [](const task::TensorSpec& input) { return input.constant; });
}

ConstantInputs draw_constant_inputs(const task::Task& task, const task::Workload& workload,
                                    uint64_t seed) {
  require_supported_dtypes(task);
  ConstantInputs constants(task.inputs.size());
  for (size_t index : draw_order(task)) {
    if (!task.inputs[index].constant) continue;
    bool not_widened = true;  // a constant input is drawn as its distribution says
    constants[index] = draw_input(task, workload, index, seed, nullptr, {}, not_widened, constants);
  }
  return constants;
}

std::vector<task::TensorValues> generate_inputs(const task::Task& task,
                                                const task::Workload& workload, uint64_t seed,
                                                const task::InputSet* set,
                                                const Variation& variation,
                                                const ConstantInputs* constants) {
  require_supported_dtypes(task);
  if (constants != nullptr && constants->size() != task.inputs.size()) {
    throw InternalError("generate_inputs: the constant inputs are not the task's");
  }
  std::vector<task::TensorValues> tensors(task.inputs.size());
  bool widened = false;
  for (size_t index : draw_order(task)) {
    if (!task.inputs[index].constant) {
      tensors[index] = draw_input(task, workload, index, seed, set, variation, widened, tensors);
    } else if (constants != nullptr) {
      tensors[index] = (*constants)[index];  // the same array, not a copy
    } else {
      bool not_widened = true;
      tensors[index] = draw_input(task, workload, index, seed, nullptr, {}, not_widened, tensors);
    }
  }
  check_drawn_constraints(task, workload, tensors, set);
  return tensors;
}

}  // namespace accelopt::platform::cpu
