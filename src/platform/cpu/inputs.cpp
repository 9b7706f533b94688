#include "platform/cpu/inputs.h"

#include <cmath>

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

}  // namespace

std::vector<std::vector<float>> generate_inputs(const task::Task& task,
                                                const task::Workload& workload, uint64_t seed) {
  std::vector<std::vector<float>> tensors;
  uint64_t stream = 0;
  for (const task::TensorSpec& spec : task.inputs) {
    if (spec.dtype != task::DType::kFloat32) {
      throw UserError("input " + spec.name + " of task " + task.name + " is " +
                      std::string(task::dtype_name(spec.dtype)) +
                      "; the CPU harness runs float32 tensors only so far");
    }
    SplitMix64 random(seed * 0x100000001B3ull + (++stream) * 0x9E3779B97F4A7C15ull);
    std::vector<float> values(static_cast<size_t>(task.element_count(spec, workload)));
    const task::InputDistribution& d = spec.distribution;
    for (size_t i = 0; i < values.size(); ++i) {
      double value;
      if (d.kind == task::Distribution::kUniform) {
        value = d.low + (d.high - d.low) * random.uniform();
      } else {
        double radius = std::sqrt(-2.0 * std::log(random.uniform()));
        double normal = radius * std::cos(2.0 * M_PI * random.uniform());
        value = d.mean + d.std * normal;
        if (d.kind == task::Distribution::kAbsNormal) value = std::fabs(value);
      }
      values[i] = static_cast<float>(value);
    }
    tensors.push_back(std::move(values));
  }
  return tensors;
}

}  // namespace accelopt::platform::cpu
