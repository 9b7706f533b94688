// What a study answers, computed from its cells' curves (docs/study.md says how each figure is
// made): per series (a variant, or its warm pass) and task, the best % of peak against cumulative
// cost with the median and the band (lowest to highest) over seeds, also as the geometric mean over
// tasks; the cost to reach `fraction` of the best found on the task; the final figures; and
// pairwise comparisons, each a paired bootstrap over (task, seed) pairs with a fixed seed, with the
// plain sentence it supports.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace accelopt::study {

enum class CostAxis : uint8_t { kEvaluations = 0, kTokens = 1, kUsd = 2, kSeconds = 3 };
inline constexpr CostAxis kCostAxes[] = {CostAxis::kEvaluations, CostAxis::kTokens, CostAxis::kUsd,
                                         CostAxis::kSeconds};
std::string_view axis_name(CostAxis axis);  // "evaluations", "tokens", "dollars", "seconds"

// The best % of peak after spending so much, and the same kernel's speedup over the cell's own
// baseline. Evaluations count the baseline's (the first point has evaluations 1), so that a cost
// is never zero on that axis. The curves and tables show % of peak; the comparisons and the cost to
// reach a target use the speedup, measured paired against the cell's own baseline: two cells'
// absolute figures rest on baselines timed at different moments, their speedups do not.
struct Point {
  double evaluations = 0, tokens = 0, usd = 0, seconds = 0;
  double percent = 0;
  double speedup = 1;
  double cost(CostAxis axis) const;
};

struct CellResult {
  std::string series;  // the variant's name, "+warm" for its warm pass
  std::string task;
  uint64_t seed = 1;
  int64_t run_id = 0;
  std::string state;         // the run's; "" when the cell has no run yet
  std::vector<Point> curve;  // in order of spending; the last is the run's end (its final figure)
  double final_percent() const { return curve.empty() ? 0 : curve.back().percent; }
  double final_speedup() const { return curve.empty() ? 0 : curve.back().speedup; }
  bool has_result() const { return !curve.empty(); }
};

struct Band {
  double median = 0, low = 0, high = 0;
};

// A series' curve on one task (or "geomean"), at the costs where any of its cells changed.
struct Curve {
  std::string series, task;
  CostAxis axis = CostAxis::kEvaluations;
  std::vector<double> x;
  std::vector<Band> y;  // median and band over seeds at each x
};

struct SeriesTask {
  std::string series, task;  // task "geomean": the geometric mean over tasks, seed by seed
  int cells = 0;             // cells with a result
  Band final_percent;
  // Per axis: the cost to reach the target, median and band over seeds; a cell that never reached
  // it counts at its whole cost (a lower bound). `reached` of `cells` reached it.
  std::map<CostAxis, Band> cost_to_reach;
  int reached = 0;
};

// Fewer pairs than this show no difference whatever their interval: one or two pairs resample into
// an interval no wider than themselves.
inline constexpr int kMinimumPairs = 3;

struct Comparison {
  std::string a, b;
  std::string measure;  // "cost" (to reach the target, on `axis`) or "final"
  CostAxis axis = CostAxis::kEvaluations;
  double ratio = 1, low = 1, high = 1;  // a over b: geometric mean over pairs, 95 % interval
  int pairs = 0;                        // (task, seed) pairs used
  int left_out = 0;    // pairs where neither reached the target, or one reached it at no cost
  bool shown = false;  // the interval excludes 1
  std::string sentence;
};

struct Answers {
  double fraction = 0.9;
  std::vector<std::string> series, tasks;
  std::map<std::string, double> best_found;  // per task, the best speedup of any cell
  std::vector<CostAxis> axes;                // those on which some cell spent something
  std::vector<SeriesTask> rows;
  std::vector<Curve> curves;
  std::vector<Comparison> comparisons;
};

// The paired bootstrap: the geometric mean of `ratios` and its 95 % percentile interval over
// `resamples` resamples of the pairs drawn with a fixed seed (so the same grid gives the same
// interval). `ratios` must be positive and non-empty.
struct Bootstrap {
  double ratio = 1, low = 1, high = 1;
};
Bootstrap paired_bootstrap(const std::vector<double>& ratios, int resamples = 2000,
                           uint64_t seed = 27);

// Everything above, from the cells (in the study's series order: `series`).
Answers answer(const std::vector<CellResult>& cells, const std::vector<std::string>& series,
               double fraction);

}  // namespace accelopt::study
