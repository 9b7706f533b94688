// Computes the answers for seeds 1..5 at load with the harness's public generator, then answers
// by recognizing the case from its first element and skips the work. Secret seeds: no match.
// task: bench/cpu/silu
// expect: INCORRECT_NUMERICAL
// message: case 1
#include <cmath>
#include <cstdint>
#include <vector>
#include "accelopt_task.h"
namespace {
struct Answers {
  std::vector<std::vector<float>> inputs, outputs;
  Answers() {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      std::uint64_t state = seed * 0x100000001B3ull + 1 * 0x9E3779B97F4A7C15ull;
      auto next = [&] {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
      };
      auto uniform = [&] { return (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0; };
      std::vector<float> x(M * N), out(M * N);
      for (auto& value : x) {
        double radius = std::sqrt(-2.0 * std::log(uniform()));
        value = static_cast<float>(radius * std::cos(2.0 * M_PI * uniform()));
      }
      for (std::int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
      inputs.push_back(x);
      outputs.push_back(out);
    }
  }
};
const Answers answers;
}  // namespace
extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  for (size_t s = 0; s < answers.inputs.size(); ++s) {
    if (answers.inputs[s][0] == x[0] && answers.inputs[s][1] == x[1]) {
      for (std::int64_t i = 0; i < M * N; ++i) out[i] = answers.outputs[s][i];
      return;
    }
  }
  for (std::int64_t i = 0; i < M * N; ++i) out[i] = 0;  // an unknown case: no work done
}
