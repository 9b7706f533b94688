#include "study/comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

namespace accelopt::study {
namespace {

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  if (n == 0) return 0;
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Band band_of(const std::vector<double>& values) {
  if (values.empty()) return {};
  auto [low, high] = std::minmax_element(values.begin(), values.end());
  return Band{median_of(values), *low, *high};
}

double geomean(const std::vector<double>& values) {
  double sum = 0;
  for (double value : values) sum += std::log(std::max(value, 1e-12));
  return values.empty() ? 0 : std::exp(sum / static_cast<double>(values.size()));
}

// The cell's best % after spending `x` (a step function); its first point's before it.
double percent_at(const CellResult& cell, CostAxis axis, double x) {
  double percent = cell.curve.front().percent;
  for (const Point& point : cell.curve) {
    if (point.cost(axis) > x) break;
    percent = point.percent;
  }
  return percent;
}

// The cost at which the cell's speedup over its own baseline first reached `target`; nullopt when
// it never did. A baseline that happened to read fast does not reach it at its first point.
// The run's end counts at the cell's final speedup (its closing figure, where it has one).
std::optional<double> cost_to_reach(const CellResult& cell, CostAxis axis, double target) {
  for (size_t index = 0; index < cell.curve.size(); ++index) {
    bool last = index + 1 == cell.curve.size();
    double speedup = last ? cell.final_speedup() : cell.curve[index].speedup;
    if (speedup >= target) return cell.curve[index].cost(axis);
  }
  return std::nullopt;
}

// The cell's best speedup: its closing figure, timed with the other cells of its task, where it
// has one; else the highest point of its curve.
double best_speedup(const CellResult& cell) {
  if (cell.closing) return cell.closing->speedup;
  double best = 0;
  for (const Point& point : cell.curve) best = std::max(best, point.speedup);
  return best;
}

std::string number(double value) {
  if (value != 0 && (std::abs(value) < 0.1 || std::abs(value) >= 100)) {
    return fmt::format("{:.3g}", value);
  }
  return fmt::format("{:.2f}", value);
}

std::string sentence(const Comparison& c, double fraction) {
  std::string interval = fmt::format("[{}, {}]", number(c.low), number(c.high));
  std::string over = fmt::format("{} (task, seed) pair{}", c.pairs, c.pairs == 1 ? "" : "s");
  if (c.pairs < kMinimumPairs) {
    return fmt::format("{} vs {}: too few pairs to show a difference in the {}: {}x {}, over {}",
                       c.a, c.b,
                       c.measure == "cost" ? fmt::format("{} to reach {:.0f} % of the best gain",
                                                         axis_name(c.axis), fraction * 100)
                                           : "final speedup over its own baseline",
                       number(c.ratio), interval, over);
  }
  if (c.measure == "cost") {
    std::string what = fmt::format("{:.0f} % of the best gain", fraction * 100);
    if (!c.shown) {
      return fmt::format("{} vs {}: no difference shown in the {} to reach {}: {}x {}, over {}",
                         c.a, c.b, axis_name(c.axis), what, number(c.ratio), interval, over);
    }
    return fmt::format("{} reached {} at {}x the {} of {}, {}, over {}", c.a, what, number(c.ratio),
                       axis_name(c.axis), c.b, interval, over);
  }
  if (!c.shown) {
    return fmt::format(
        "{} vs {}: no difference shown in the final speedup over each cell's own baseline: {}x "
        "{}, over {}",
        c.a, c.b, number(c.ratio), interval, over);
  }
  return fmt::format("{}'s final speedup over its own baseline was {}x {}'s, {}, over {}", c.a,
                     number(c.ratio), c.b, interval, over);
}

}  // namespace

std::string_view axis_name(CostAxis axis) {
  switch (axis) {
    case CostAxis::kEvaluations:
      return "evaluations";
    case CostAxis::kTokens:
      return "tokens";
    case CostAxis::kUsd:
      return "dollars";
    case CostAxis::kSeconds:
      return "seconds";
  }
  return "?";
}

double Point::cost(CostAxis axis) const {
  switch (axis) {
    case CostAxis::kEvaluations:
      return evaluations;
    case CostAxis::kTokens:
      return tokens;
    case CostAxis::kUsd:
      return usd;
    case CostAxis::kSeconds:
      return seconds;
  }
  return 0;
}

double CellResult::final_speedup() const {
  if (closing) return closing->speedup;
  return curve.empty() ? 0 : curve.back().speedup;
}

double CellResult::final_percent() const {
  if (curve.empty()) return 0;
  const Point& last = curve.back();
  if (!closing || last.speedup <= 0) return last.percent;
  return last.percent / last.speedup * closing->speedup;
}

bool CellResult::busy() const {
  return (!curve.empty() && curve.back().busy) || (closing && closing->busy);
}

double student_t_975(int degrees) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                      2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                      2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                      2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (degrees < 1) return std::numeric_limits<double>::infinity();
  if (degrees <= 30) return kTable[degrees - 1];
  // Beyond the table, the normal quantile with its first two corrections in 1 / degrees.
  const double z = 1.959964, n = degrees;
  return z + (z * z * z + z) / (4 * n) +
         (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

Bootstrap paired_bootstrap(const std::vector<double>& ratios, int resamples, uint64_t seed) {
  std::vector<double> logs;
  for (double ratio : ratios) logs.push_back(std::log(ratio));
  double mean = 0;
  for (double value : logs) mean += value;
  mean /= static_cast<double>(logs.size());
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<size_t> pick(0, logs.size() - 1);
  std::vector<double> means;
  means.reserve(static_cast<size_t>(resamples));
  for (int sample = 0; sample < resamples; ++sample) {
    double sum = 0;
    for (size_t index = 0; index < logs.size(); ++index) sum += logs[pick(random)];
    means.push_back(sum / static_cast<double>(logs.size()));
  }
  std::sort(means.begin(), means.end());
  auto at = [&](double q) {
    size_t index = static_cast<size_t>(std::floor(q * static_cast<double>(means.size() - 1)));
    return means[index];
  };
  double low = at(0.025), high = at(0.975);
  // Resampled means spread like the sample, which understates the mean's spread when there are
  // few pairs; Student's t on the logs does not, so the interval is the wider of the two.
  if (logs.size() >= 2) {
    double squares = 0;
    for (double value : logs) squares += (value - mean) * (value - mean);
    double n = static_cast<double>(logs.size());
    double half =
        student_t_975(static_cast<int>(logs.size()) - 1) * std::sqrt(squares / (n - 1) / n);
    low = std::min(low, mean - half);
    high = std::max(high, mean + half);
  }
  return Bootstrap{std::exp(mean), std::exp(low), std::exp(high)};
}

double reach_target(const Answers& answers, const std::string& task) {
  auto best = answers.best_found.find(task);
  if (best == answers.best_found.end()) return 1;
  return 1 + answers.fraction * std::max(best->second - 1, 0.0);
}

Answers answer(const std::vector<CellResult>& cells, const std::vector<std::string>& series,
               double fraction) {
  Answers answers;
  answers.fraction = fraction;
  answers.series = series;
  std::set<std::string> seen_tasks;
  for (const CellResult& cell : cells) {
    if (seen_tasks.insert(cell.task).second) answers.tasks.push_back(cell.task);
    if (!cell.has_result()) continue;
    double& best = answers.best_found[cell.task];
    best = std::max(best, best_speedup(cell));
  }
  for (CostAxis axis : kCostAxes) {
    bool spent = false;
    for (const CellResult& cell : cells) {
      for (const Point& point : cell.curve) spent = spent || point.cost(axis) > 0;
    }
    if (spent) answers.axes.push_back(axis);
  }
  // The cells of a series and task, by seed.
  auto of = [&](const std::string& name, const std::string& task) {
    std::map<uint64_t, const CellResult*> found;
    for (const CellResult& cell : cells) {
      if (cell.series == name && cell.task == task && cell.has_result()) found[cell.seed] = &cell;
    }
    return found;
  };
  auto target = [&](const std::string& task) { return reach_target(answers, task); };
  // A cell's cost to reach the target, or its whole cost when it never did.
  auto reach_or_all = [&](const CellResult& cell, CostAxis axis) {
    return cost_to_reach(cell, axis, target(cell.task)).value_or(cell.curve.back().cost(axis));
  };

  for (const std::string& name : series) {
    // Seeds with a result on every task: the geometric mean needs the whole set.
    std::map<uint64_t, std::vector<const CellResult*>> by_seed;
    for (const std::string& task : answers.tasks) {
      SeriesTask row;
      row.series = name;
      row.task = task;
      std::vector<double> finals, speedups;
      std::map<CostAxis, std::vector<double>> costs;
      for (const auto& [seed, cell] : of(name, task)) {
        ++row.cells;
        if (cell->busy()) ++row.busy;
        finals.push_back(cell->final_percent());
        speedups.push_back(cell->final_speedup());
        by_seed[seed].push_back(cell);
        if (cost_to_reach(*cell, CostAxis::kEvaluations, target(task))) ++row.reached;
        for (CostAxis axis : answers.axes) costs[axis].push_back(reach_or_all(*cell, axis));
      }
      if (row.cells == 0) continue;
      row.final_percent = band_of(finals);
      row.final_speedup = band_of(speedups);
      for (const auto& [axis, values] : costs) row.cost_to_reach[axis] = band_of(values);
      answers.rows.push_back(row);
      for (CostAxis axis : answers.axes) {
        Curve curve;
        curve.series = name;
        curve.task = task;
        curve.axis = axis;
        std::set<double> xs;
        for (const auto& [seed, cell] : of(name, task)) {
          for (const Point& point : cell->curve) xs.insert(point.cost(axis));
        }
        for (double x : xs) {
          std::vector<double> ys;
          for (const auto& [seed, cell] : of(name, task)) ys.push_back(percent_at(*cell, axis, x));
          curve.x.push_back(x);
          curve.y.push_back(band_of(ys));
        }
        answers.curves.push_back(curve);
      }
    }
    std::erase_if(by_seed,
                  [&](const auto& entry) { return entry.second.size() != answers.tasks.size(); });
    if (by_seed.empty() || answers.tasks.size() < 2) continue;
    SeriesTask row;
    row.series = name;
    row.task = "geomean";
    std::vector<double> finals, speedups;
    std::map<CostAxis, std::vector<double>> costs;
    for (const auto& [seed, seed_cells] : by_seed) {
      ++row.cells;
      std::vector<double> percents, seed_speedups;
      std::map<CostAxis, std::vector<double>> seed_costs;
      bool all_reached = true;
      for (const CellResult* cell : seed_cells) {
        if (cell->busy()) ++row.busy;
        percents.push_back(cell->final_percent());
        seed_speedups.push_back(cell->final_speedup());
        all_reached = all_reached &&
                      cost_to_reach(*cell, CostAxis::kEvaluations, target(cell->task)).has_value();
        for (CostAxis axis : answers.axes) seed_costs[axis].push_back(reach_or_all(*cell, axis));
      }
      if (all_reached) ++row.reached;
      finals.push_back(geomean(percents));
      speedups.push_back(geomean(seed_speedups));
      for (CostAxis axis : answers.axes) costs[axis].push_back(geomean(seed_costs[axis]));
    }
    row.final_percent = band_of(finals);
    row.final_speedup = band_of(speedups);
    for (const auto& [axis, values] : costs) row.cost_to_reach[axis] = band_of(values);
    answers.rows.push_back(row);
    for (CostAxis axis : answers.axes) {
      Curve curve;
      curve.series = name;
      curve.task = "geomean";
      curve.axis = axis;
      std::set<double> xs;
      for (const auto& [seed, seed_cells] : by_seed) {
        for (const CellResult* cell : seed_cells) {
          for (const Point& point : cell->curve) xs.insert(point.cost(axis));
        }
      }
      for (double x : xs) {
        std::vector<double> ys;
        for (const auto& [seed, seed_cells] : by_seed) {
          std::vector<double> percents;
          for (const CellResult* cell : seed_cells) percents.push_back(percent_at(*cell, axis, x));
          ys.push_back(geomean(percents));
        }
        curve.x.push_back(x);
        curve.y.push_back(band_of(ys));
      }
      answers.curves.push_back(curve);
    }
  }

  for (size_t i = 0; i < series.size(); ++i) {
    for (size_t j = i + 1; j < series.size(); ++j) {
      const std::string& a = series[i];
      const std::string& b = series[j];
      std::vector<std::pair<const CellResult*, const CellResult*>> pairs;
      for (const std::string& task : answers.tasks) {
        auto as = of(a, task), bs = of(b, task);
        for (const auto& [seed, cell] : as) {
          if (auto other = bs.find(seed); other != bs.end())
            pairs.emplace_back(cell, other->second);
        }
      }
      if (pairs.empty()) continue;
      auto add = [&](Comparison comparison, const std::vector<double>& ratios) {
        comparison.pairs = static_cast<int>(ratios.size());
        if (ratios.empty()) return;
        Bootstrap result = paired_bootstrap(ratios);
        comparison.ratio = result.ratio;
        comparison.low = result.low;
        comparison.high = result.high;
        comparison.shown = comparison.pairs >= kMinimumPairs && (result.low > 1 || result.high < 1);
        comparison.sentence = sentence(comparison, fraction);
        answers.comparisons.push_back(comparison);
      };
      for (CostAxis axis : answers.axes) {
        Comparison comparison;
        comparison.a = a;
        comparison.b = b;
        comparison.measure = "cost";
        comparison.axis = axis;
        std::vector<double> ratios;
        for (const auto& [cell_a, cell_b] : pairs) {
          auto reach_a = cost_to_reach(*cell_a, axis, target(cell_a->task));
          auto reach_b = cost_to_reach(*cell_b, axis, target(cell_b->task));
          double cost_a = reach_or_all(*cell_a, axis), cost_b = reach_or_all(*cell_b, axis);
          if ((!reach_a && !reach_b) || cost_a <= 0 || cost_b <= 0) {
            if (cost_a <= 0 && cost_b <= 0 && reach_a && reach_b) {
              ratios.push_back(1);  // both at the start: a tie
            } else {
              ++comparison.left_out;
            }
            continue;
          }
          ratios.push_back(cost_a / cost_b);
        }
        add(comparison, ratios);
      }
      Comparison comparison;
      comparison.a = a;
      comparison.b = b;
      comparison.measure = "final";
      std::vector<double> ratios;
      for (const auto& [cell_a, cell_b] : pairs) {
        if (cell_a->final_speedup() > 0 && cell_b->final_speedup() > 0) {
          ratios.push_back(cell_a->final_speedup() / cell_b->final_speedup());
        } else {
          ++comparison.left_out;
        }
      }
      add(comparison, ratios);
    }
  }
  return answers;
}

}  // namespace accelopt::study
