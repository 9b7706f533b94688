#include "report/bench_text.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>

#include "common/json.h"

namespace accelopt::report {
namespace {

// 100 columns with bench/cpu's longest task name and status; the task column widens for longer
// names (FlashInfer-Bench's run to 45 characters), so that the other columns stay in line.
constexpr const char* kTableRow = "{:<{}} {:<12} {:<19} {:>22} {:>6} {:>6} {:>7}\n";
constexpr size_t kTaskColumn = 22;

size_t task_column(const std::vector<BenchRow>& rows) {
  size_t width = kTaskColumn;
  for (const BenchRow& row : rows) width = std::max(width, row.task.size());
  return width;
}

// Three significant digits without an exponent: 0.00123 -> 0.00123, 999.6 -> 1000.
std::string significant(double value) {
  if (value <= 0) return "0";
  int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(value))));
  return fmt::format("{:.{}f}", value, decimals);
}

// "1.93 [1.85, 2.00] us": the unit follows the latency, so that a tiny workload's row fits too.
std::string latency_cell(const kernel::Verdict& verdict) {
  if (!verdict.timing) return "-";
  const kernel::Timing& timing = *verdict.timing;
  double scale = 1e9;
  const char* unit = "ns";
  if (timing.latency_seconds >= 1e-3) {
    scale = 1e3;
    unit = "ms";
  } else if (timing.latency_seconds >= 1e-6) {
    scale = 1e6;
    unit = "us";
  }
  return fmt::format("{} [{}, {}] {}", significant(timing.latency_seconds * scale),
                     significant(timing.latency_low * scale),
                     significant(timing.latency_high * scale), unit);
}

void print_table_row(std::ostream& out, const BenchRow& row, size_t task_width) {
  const kernel::Verdict& verdict = row.verdict;
  std::string percent =
      verdict.roofline ? fmt::format("{:.1f}", verdict.roofline->percent_of_peak) : "-";
  std::string bound = verdict.roofline ? verdict.roofline->bound : "-";
  std::string speedup = verdict.timing ? fmt::format("{:.2f}x", verdict.timing->speedup) : "-";
  fmt::print(out, kTableRow, row.task, task_width, row.kernel, kernel::status_name(verdict.status),
             latency_cell(verdict), percent, bound, speedup);
  if (!verdict.passed() && !verdict.message.empty()) out << "    " << verdict.message << "\n";
}

}  // namespace

void print_bench_table(std::ostream& out, const std::vector<BenchRow>& rows) {
  size_t task_width = task_column(rows);
  fmt::print(out, kTableRow, "task", task_width, "kernel", "status", "latency [95% CI]", "% peak",
             "bound", "speedup");
  double log_sum = 0;
  int passed = 0, tasks = 0;  // task kernels; passed: with a % of peak for the mean
  for (const BenchRow& row : rows) {
    print_table_row(out, row, task_width);
    if (row.library) continue;
    ++tasks;
    const kernel::Verdict& verdict = row.verdict;
    if (verdict.passed() && verdict.roofline && verdict.roofline->percent_of_peak > 0) {
      log_sum += std::log(verdict.roofline->percent_of_peak);
      ++passed;
    }
  }
  fmt::print(out, "\n{} of {} task kernels passed; geometric mean of % of peak: {}\n", passed,
             tasks, passed ? fmt::format("{:.1f} %", std::exp(log_sum / passed)) : "-");
}

void print_bench_csv(std::ostream& out, const std::vector<BenchRow>& rows) {
  out << "task,kernel,status,latency_ms,latency_low_ms,latency_high_ms,percent_of_peak,bound,"
         "speedup\n";
  for (const BenchRow& row : rows) {
    const kernel::Verdict& v = row.verdict;
    fmt::print(
        out, "{},{},{},{},{},{},{},{},{}\n", row.task, row.kernel, kernel::status_name(v.status),
        v.timing ? v.timing->latency_seconds * 1e3 : 0, v.timing ? v.timing->latency_low * 1e3 : 0,
        v.timing ? v.timing->latency_high * 1e3 : 0, v.roofline ? v.roofline->percent_of_peak : 0,
        v.roofline ? v.roofline->bound : "", v.timing ? v.timing->speedup : 0);
  }
}

void print_bench_json(std::ostream& out, const std::vector<BenchRow>& rows) {
  Json json = Json::array();
  for (const BenchRow& row : rows) {
    json.push_back({{"task", row.task},
                    {"kernel", row.kernel},
                    {"library", row.library},
                    {"verdict", row.verdict.to_json()}});
  }
  out << json.dump(2) << "\n";
}

}  // namespace accelopt::report
