// Input tensors drawn as a task's definition says, the same on every machine for the same seed:
// a fixed generator (SplitMix64) and Box-Muller, not the standard library's unspecified ones.
//
// The generator is public, so the seeds must not be: a kernel that knew them could compute the
// answers at load and skip the work. Every evaluation draws fresh seeds from the operating system's
// random source in the harness, and only the inputs they make ever reach a kernel's process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "task/task.h"

namespace accelopt::platform::cpu {

// Throws UserError naming the first tensor that is not float32: the CPU harness runs float32 only.
void require_float32(const task::Task& task);

// One case to check: a seed, and the input set its inputs are drawn from (empty: the task's own
// distributions). `label` names it in messages without giving the seed away.
struct CaseSpec {
  std::string set;
  uint64_t seed = 0;
  std::string label;
};

// 64 bits from getrandom(2); throws if the system has none to give.
uint64_t secret_seed();

// The cases of one correctness check, each with a fresh secret seed: task.seeds cases from the
// task's own distributions, then each input set's seeds.
std::vector<CaseSpec> correctness_cases(const task::Task& task);

// `count` cases from the task's own distributions with fresh secret seeds, for timed turns.
std::vector<CaseSpec> timing_cases(const task::Task& task, int count);

// Cases for seeds a person chose (`accelopt bench reference --seed`): not secret.
std::vector<CaseSpec> chosen_cases(const std::vector<uint64_t>& seeds, const std::string& set = "");

// One float array per input, in definition order, drawn from `set`'s distributions where it names
// an input and the task's elsewhere. Throws UserError for dtypes the CPU harness does not run yet.
std::vector<std::vector<float>> generate_inputs(const task::Task& task,
                                                const task::Workload& workload, uint64_t seed,
                                                const task::InputSet* set = nullptr);

}  // namespace accelopt::platform::cpu
