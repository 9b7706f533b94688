// The correctness cases a check draws for a task, by family, and the ranges their secret
// variations come from. One table, read by the harness that draws the cases (cpu/inputs.cpp, whose
// cases every platform is checked on) and by the agents' prompt, which must describe every case the
// checker draws (its ranges, never its secret parameters): the two cannot drift apart.
#pragma once

#include <string>
#include <vector>

#include "task/task.h"

namespace accelopt::platform {

struct VariationRange {
  double low = 0, high = 0;
};

struct CaseVariationRanges {
  // The task's own cases: with this many or more, the last one widens the first normal (or
  // half-normal) input: its std times a factor drawn log-uniformly in `wide_spread`.
  int seeds_for_wide_case = 3;
  VariationRange wide_spread{2, 4};
  // An input set's cases, for the inputs the set names: a normal's or half-normal's std times
  // `set_spread`; a normal's mean moved by `set_shift` stds; a uniform keeps a sub-range of
  // `set_width` of its range, placed `set_shift` + 0.5 of the way along what is left.
  VariationRange set_spread{1, 2};
  VariationRange set_shift{-0.5, 0.5};
  VariationRange set_width{0.5, 1};
  // A set's first case draws every element of its inputs from the set; each later case only this
  // share of them, at random places, the rest from the task's own distributions.
  VariationRange set_fraction{0.25, 1};
};
inline constexpr CaseVariationRanges kCaseVariation{};

// One family of cases: how many a check draws, and what they are, in words for a model.
struct CaseFamily {
  std::string set;  // empty: the task's own distributions
  int cases = 0;
  std::string description;
};

// The index of the input the task's wide case widens (its first normal or half-normal input), or
// -1 when it has none or the task has too few cases for one.
int widened_input(const task::Task& task);

// Every case a correctness check of `task` draws, in the order it draws them.
std::vector<CaseFamily> describe_correctness_cases(const task::Task& task);

}  // namespace accelopt::platform
