// Input tensors drawn as a task's definition says, the same on every machine for the same seed:
// a fixed generator (SplitMix64) and the ziggurat method for normals, not the standard library's
// unspecified ones.
//
// The generator is public, so the seeds must not be: a kernel that knew them could compute the
// answers at load and skip the work. Seeds are drawn from the operating system's random source in
// the harness (at least one case afresh for every evaluation: case_cache.h), and only the inputs
// they make ever reach a kernel's process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "task/task.h"
#include "task/tensor_values.h"

namespace accelopt::platform::cpu {

// Throws UserError naming the first tensor of a dtype the CPU harness does not run (float64: the
// kernels' float values are exact, task/dtype.h, and a double is not).
void require_supported_dtypes(const task::Task& task);

// How a case's distributions differ from those its definition names, drawn in secret per case so
// that no fixed statistic identifies a family (issue 23, class 5):
//   - `spread` multiplies a normal's or half-normal's std, and `shift` moves a normal's mean by
//   that
//     many stds; a uniform keeps a sub-range of its own of `width` (≤ 1) of its range, starting
//     `shift` + 0.5 (0 to 1) of the way along what is left, so every value stays in its range;
//   - `fraction` of the elements of an input the set names come from the set, the rest from the
//     task's own distribution, at random places (1: all from the set).
// Constant distributions are left as they are.
struct Variation {
  double spread = 1, width = 1, shift = 0, fraction = 1;
};

// One case to check: a seed, and the input set its inputs are drawn from (empty: the task's own
// distributions), varied as `variation` says. `label` names it in messages without giving the
// seed or the parameters away.
struct CaseSpec {
  std::string set;
  uint64_t seed = 0;
  std::string label;
  Variation variation;
};

// 64 bits from getrandom(2); throws if the system has none to give.
uint64_t secret_seed();

// The cases of one correctness check, each with a fresh secret seed: task.seeds cases from the
// task's own distributions (the last of them, where there are 3 or more, with a wider spread of
// its first normal input: 2x to 4x the std, as real activations and scores have), then each input
// set's seeds (the first as the set says, within its family; the others mixed with the task's own
// distributions). The ranges are platform::kCaseVariation (platform/case_variation.h), which
// the agents' prompt describes case by case.
std::vector<CaseSpec> correctness_cases(const task::Task& task);

// The pool timed turns mix their inputs from, with fresh secret seeds: `count` cases from the
// task's own distributions, then one of every edge-case family correctness_cases draws from (the
// wider spread, and each input set as the set says), varied as there.
std::vector<CaseSpec> timing_cases(const task::Task& task, int count);

// Cases for seeds a person chose (`accelopt bench reference --seed`): not secret.
std::vector<CaseSpec> chosen_cases(const std::vector<uint64_t>& seeds, const std::string& set = "");

// The values of a task's constant inputs (task::TensorSpec::constant) on one workload, by input
// index, empty where an input is not constant: drawn once for an evaluation, and shared, not
// copied, by every case generate_inputs is given them for.
using ConstantInputs = std::vector<task::TensorValues>;

bool has_constant_inputs(const task::Task& task);

// `task`'s constant inputs drawn from `seed`, each from the task's own distribution (a workload's
// file input read from its file), as generate_inputs draws them from the same seed.
ConstantInputs draw_constant_inputs(const task::Task& task, const task::Workload& workload,
                                    uint64_t seed);

// Each input's elements in its dtype, in definition order: a workload's file input read from its
// file (the same in every case), a constant input `constants`'s where given (else drawn from
// `seed` as draw_constant_inputs draws it), the others drawn from `set`'s distributions where it
// names an input and the task's elsewhere, varied as `variation` says, each value rounded to the
// tensor's dtype (round_to_dtype; float8 values drawn directly with the distribution that rounding
// gives). Throws UserError for dtypes the CPU harness does not run.
std::vector<task::TensorValues> generate_inputs(const task::Task& task,
                                                const task::Workload& workload, uint64_t seed,
                                                const task::InputSet* set = nullptr,
                                                const Variation& variation = {},
                                                const ConstantInputs* constants = nullptr);

}  // namespace accelopt::platform::cpu
