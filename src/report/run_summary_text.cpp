#include "report/run_summary_text.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>

#include "search/figures.h"

namespace accelopt::report {
namespace {

std::string speedup_text(const search::RunSummary& summary) {
  return fmt::format("{:.2f}x [{:.2f}, {:.2f}]", summary.best_speedup, summary.best_speedup_low,
                     summary.best_speedup_high);
}

std::string confirmation_note(const search::RunSummary& summary) {
  if (!summary.confirmed) return ", not confirmed";
  return summary.significant ? "" : ", no significant improvement";
}

}  // namespace

// The best's % of peak derives from the baseline's (search/figures.h): best % / baseline % is the
// speedup, the kernel's one figure (the most precise of its measurements).
void print_run_summary(std::ostream& out, const search::RunSummary& summary,
                       std::string_view workspace_option) {
  std::string also = workspace_option.empty() ? "" : " " + std::string(workspace_option);
  fmt::print(out, "\n{:<10} {:>22} {:>12}\n", "kernel", "speedup", "% of peak");
  fmt::print(out, "{:<10} {:>22} {:>11.1f}%{}{}\n", "baseline", "1.00x",
             summary.baseline_percent_of_peak,
             kernel::over_ceiling_note(summary.baseline_percent_of_peak),
             search::busy_mark(summary.baseline_busy));
  std::string best =
      summary.best_candidate == 0 ? "best" : fmt::format("best #{}", summary.best_candidate);
  fmt::print(out, "{:<10} {:>22} {:>11.1f}%{}{}\n", best, speedup_text(summary),
             summary.best_percent_of_peak, kernel::over_ceiling_note(summary.best_percent_of_peak),
             search::busy_mark(summary.best_busy));
  if (summary.baseline_busy || summary.best_busy) out << search::kBusyLegend << "\n";
  // Which measurement the figure is, as `show` and `export` give the same kernel and figure.
  if (summary.best_candidate != 0 && !summary.best_origin.empty()) {
    fmt::print(out, "#{}'s figure: {}\n", summary.best_candidate, summary.best_origin);
  }
  if (!summary.scale_origin.empty()) {
    fmt::print(out, "% of peak derives from {}\n", summary.scale_origin);
  }
  if (!summary.outcome.empty()) out << summary.outcome << "\n";
  fmt::print(out, "run {}: {} ({} iterations, {} evaluations); see `accelopt show {}{}`\n",
             summary.run_id, summary.state, summary.iterations_done, summary.evaluations,
             summary.run_id, also);
  if (search::worth_resuming(summary.state)) {
    fmt::print(out, "continue it with `accelopt resume {}{}`\n", summary.run_id, also);
  }
}

void print_run_summaries(std::ostream& out,
                         const std::vector<std::pair<std::string, search::RunSummary>>& summaries) {
  fmt::print(out, "\n{:<24} {:>5} {:>10} {:>10} {:>22}  {}\n", "task", "run", "baseline %",
             "best %", "speedup [95% CI]", "state");
  double log_before = 0, log_after = 0;
  int counted = 0;
  for (const auto& [name, summary] : summaries) {
    fmt::print(out, "{:<24} {:>5} {:>9.1f}% {:>9.1f}% {:>22}  {}{}{}{}\n", name, summary.run_id,
               summary.baseline_percent_of_peak, summary.best_percent_of_peak,
               speedup_text(summary), summary.state, confirmation_note(summary),
               search::busy_mark(summary.baseline_busy || summary.best_busy),
               kernel::over_ceiling_note(
                   std::max(summary.baseline_percent_of_peak, summary.best_percent_of_peak)));
    // A run without a % of peak (its baseline failed) has no place in the means.
    if (summary.baseline_percent_of_peak > 0 && summary.best_percent_of_peak > 0) {
      log_before += std::log(summary.baseline_percent_of_peak);
      log_after += std::log(summary.best_percent_of_peak);
      ++counted;
    }
  }
  if (counted > 0) {
    fmt::print(out, "{:<24} {:>5} {:>9.1f}% {:>9.1f}% {:>21.2f}x\n", "geometric mean", "",
               std::exp(log_before / counted), std::exp(log_after / counted),
               std::exp((log_after - log_before) / counted));
  }
}

}  // namespace accelopt::report
