#include "platform/cpu/inputs.h"

#include <sys/random.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "common/error.h"

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
  // Uniform in (0, 1), never 0, so that log() in Box-Muller is finite.
  double uniform() {
    return (static_cast<double>(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  }

 private:
  uint64_t state_;
};

double draw(const task::InputDistribution& d, SplitMix64& random) {
  switch (d.kind) {
    case task::Distribution::kConstant:
      return d.value;
    case task::Distribution::kUniform:
      return d.low + (d.high - d.low) * random.uniform();
    case task::Distribution::kNormal:
    case task::Distribution::kAbsNormal:
      break;
  }
  double radius = std::sqrt(-2.0 * std::log(random.uniform()));
  double value = d.mean + d.std * radius * std::cos(2.0 * M_PI * random.uniform());
  return d.kind == task::Distribution::kAbsNormal ? std::fabs(value) : value;
}

CaseSpec secret_case(const std::string& set, size_t number) {
  CaseSpec spec;
  spec.set = set;
  spec.seed = secret_seed();
  spec.label = "case " + std::to_string(number) + (set.empty() ? "" : " (input set '" + set + "')");
  return spec;
}

}  // namespace

void require_float32(const task::Task& task) {
  for (const auto* list : {&task.inputs, &task.outputs}) {
    for (const task::TensorSpec& spec : *list) {
      if (spec.dtype == task::DType::kFloat32) continue;
      throw UserError("task " + task.name + ": tensor '" + spec.name + "' is " +
                      std::string(task::dtype_name(spec.dtype)) +
                      "; the CPU harness runs float32 tensors only so far");
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

std::vector<CaseSpec> correctness_cases(const task::Task& task) {
  std::vector<CaseSpec> cases;
  for (int i = 0; i < task.seeds; ++i) cases.push_back(secret_case("", cases.size() + 1));
  for (const task::InputSet& set : task.input_sets) {
    for (int i = 0; i < set.seeds; ++i) cases.push_back(secret_case(set.name, cases.size() + 1));
  }
  return cases;
}

std::vector<CaseSpec> timing_cases(const task::Task& task, int count) {
  (void)task;
  std::vector<CaseSpec> cases;
  for (int i = 0; i < count; ++i) {
    cases.push_back(secret_case("", cases.size() + 1));
    cases.back().label = "timing " + cases.back().label;
  }
  return cases;
}

std::vector<CaseSpec> chosen_cases(const std::vector<uint64_t>& seeds, const std::string& set) {
  std::vector<CaseSpec> cases;
  for (uint64_t seed : seeds) {
    cases.push_back(
        {set, seed, "seed " + std::to_string(seed) + (set.empty() ? "" : " of " + set)});
  }
  return cases;
}

std::vector<std::vector<float>> generate_inputs(const task::Task& task,
                                                const task::Workload& workload, uint64_t seed,
                                                const task::InputSet* set) {
  require_float32(task);
  std::vector<std::vector<float>> tensors;
  uint64_t stream = 0;
  for (const task::TensorSpec& spec : task.inputs) {
    SplitMix64 random(seed * 0x100000001B3ull + (++stream) * 0x9E3779B97F4A7C15ull);
    const task::InputDistribution* distribution = &spec.distribution;
    if (set != nullptr) {
      if (auto found = set->inputs.find(spec.name); found != set->inputs.end()) {
        distribution = &found->second;
      }
    }
    std::vector<float> values(static_cast<size_t>(task.element_count(spec, workload)));
    for (float& value : values) value = static_cast<float>(draw(*distribution, random));
    tensors.push_back(std::move(values));
  }
  return tensors;
}

}  // namespace accelopt::platform::cpu
