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
  bool busy = false;  // the figure was measured on a busy machine
  double cost(CostAxis axis) const;
};

// A cell's best kernel as the study's closing round timed it (study/closing_round.h): against its
// task's one baseline, in the same minutes as the other cells of its task, combined over rounds.
struct ClosingFigure {
  double speedup = 1, low = 1, high = 1;
  bool busy = false;      // some round was measured on a busy machine
  bool baseline = false;  // the cell's best was the baseline: 1x exactly, never timed
  int rounds = 0;         // rounds that gave a figure
};

struct CellResult {
  std::string series;  // the variant's name, "+warm" for its warm pass
  std::string task;
  uint64_t seed = 1;
  int64_t run_id = 0;
  std::string state;         // the run's; "" when the cell has no run yet
  std::vector<Point> curve;  // in order of spending; the last is the run's end (its final figure)
  // Its best kernel timed with the other cells of its task, when the closing round did: then the
  // final figures are this one, not the last point's, which the run measured apart.
  std::optional<ClosingFigure> closing;
  // The closing figure's speedup where there is one, else the last point's.
  double final_speedup() const;
  // The last point's % of peak, scaled by the closing figure where there is one (a run's % of peak
  // is its baseline's times the speedup).
  double final_percent() const;
  // A figure it rests on was measured on a busy machine: its run's best, or its closing figure.
  bool busy() const;
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
  int busy = 0;              // of them, those whose figures were measured on a busy machine
  Band final_percent;
  Band final_speedup;  // over each cell's own baseline (the closing round's, where it ran)
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
  // Per task, the best speedup of any cell: its closing figure where it has one, else the highest
  // point of its curve.
  std::map<std::string, double> best_found;
  std::vector<CostAxis> axes;  // those on which some cell spent something
  std::vector<SeriesTask> rows;
  std::vector<Curve> curves;
  std::vector<Comparison> comparisons;
};

// The paired bootstrap: the geometric mean of `ratios` and its 95 % interval, the wider of the
// percentile interval over `resamples` resamples of the pairs, drawn with a fixed seed (so the
// same grid gives the same interval), and Student's t interval on the ratios' logarithms (the
// percentile interval alone is too narrow on a few pairs). `ratios` must be positive and
// non-empty.
struct Bootstrap {
  double ratio = 1, low = 1, high = 1;
};
Bootstrap paired_bootstrap(const std::vector<double>& ratios, int resamples = 2000,
                           uint64_t seed = 27);

// The 97.5th percentile of Student's t with `degrees` degrees of freedom (infinite below 1).
double student_t_975(int degrees);

// The speedup a cell of `task` must reach to count as having reached the target: `fraction` of
// the best gain over the baseline found on the task, 1 + fraction * (best - 1) (1 when nothing
// beat the baseline). A fraction of the best speedup itself would sit below 1 for a best under
// 1 / fraction, and every cell would reach it at its first point.
double reach_target(const Answers& answers, const std::string& task);

// Everything above, from the cells (in the study's series order: `series`).
Answers answer(const std::vector<CellResult>& cells, const std::vector<std::string>& series,
               double fraction);

}  // namespace accelopt::study
