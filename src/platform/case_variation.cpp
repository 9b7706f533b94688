#include "platform/case_variation.h"

#include <fmt/format.h>

namespace accelopt::platform {
namespace {

bool spreads(task::Distribution kind) {
  return kind == task::Distribution::kNormal || kind == task::Distribution::kAbsNormal;
}

std::string range_text(VariationRange range) {
  return fmt::format("{:g} to {:g}", range.low, range.high);
}

std::string own_distributions(const task::Task& task) {
  std::string text;
  for (const task::TensorSpec& input : task.inputs) {
    text += fmt::format("{}`{}` ~ {}", text.empty() ? "" : "; ", input.name,
                        task::distribution_text(input.distribution));
  }
  return text;
}

// What varies in a set's cases, by the kinds of distribution the set names.
std::string set_variation(const task::InputSet& set) {
  const CaseVariationRanges& ranges = kCaseVariation;
  bool normal = false, half_normal = false, uniform = false;
  for (const auto& [name, distribution] : set.inputs) {
    normal = normal || distribution.kind == task::Distribution::kNormal;
    half_normal = half_normal || distribution.kind == task::Distribution::kAbsNormal;
    uniform = uniform || distribution.kind == task::Distribution::kUniform;
  }
  std::vector<std::string> parts;
  if (normal || half_normal) {
    parts.push_back(fmt::format("a {}'s std multiplied by {}",
                                normal && half_normal ? "normal's or half-normal's"
                                : normal              ? "normal"
                                                      : "half-normal",
                                range_text(ranges.set_spread)));
  }
  if (normal) {
    parts.push_back(fmt::format("a normal's mean moved by {} stds", range_text(ranges.set_shift)));
  }
  if (uniform) {
    parts.push_back(fmt::format(
        "a uniform narrowed to a sub-range {:g} to {:g} times as wide, anywhere inside its range",
        ranges.set_width.low, ranges.set_width.high));
  }
  std::string text;
  if (!parts.empty()) {
    text = "; each case varies the set's distributions, by amounts drawn in secret: ";
    for (size_t i = 0; i < parts.size(); ++i) {
      text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    }
  }
  if (set.seeds > 1) {
    text += fmt::format(
        "; the first case draws every element of the named inputs from the set, each later case "
        "a share of {:g} % to {:g} % of them at random places, the rest from the task's own "
        "distributions",
        100 * ranges.set_fraction.low, 100 * ranges.set_fraction.high);
  }
  return text;
}

}  // namespace

int widened_input(const task::Task& task) {
  if (task.seeds < kCaseVariation.seeds_for_wide_case) return -1;
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    // A constant input is drawn once as its distribution says (task.h), never widened.
    if (!task.inputs[i].constant && spreads(task.inputs[i].distribution.kind)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::vector<CaseFamily> describe_correctness_cases(const task::Task& task) {
  std::vector<CaseFamily> families;
  int wide = widened_input(task);
  int own = task.seeds - (wide >= 0 ? 1 : 0);
  if (own > 0) {
    families.push_back({"", own, "the inputs' own distributions: " + own_distributions(task)});
  }
  if (wide >= 0) {
    const task::TensorSpec& input = task.inputs[static_cast<size_t>(wide)];
    families.push_back(
        {"", 1,
         fmt::format("the same distributions, but a wider spread of `{}`: its std multiplied by a "
                     "factor from {} (log-uniform, drawn in secret per case), as real "
                     "activations and scores have; every other input as its own",
                     input.name, range_text(kCaseVariation.wide_spread))});
  }
  for (const task::InputSet& set : task.input_sets) {
    std::string draws;
    for (const auto& [name, distribution] : set.inputs) {
      draws += fmt::format("{}`{}` ~ {}", draws.empty() ? "" : "; ", name,
                           task::distribution_text(distribution));
    }
    families.push_back({set.name, set.seeds,
                        fmt::format("{}. Draws {}, the other inputs from their own distributions{}",
                                    set.description, draws, set_variation(set))});
  }
  return families;
}

}  // namespace accelopt::platform
