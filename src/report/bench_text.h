// What `accelopt bench` prints: a row per kernel it evaluated (each task's kernel, then the
// library's for comparison), as a table, CSV or JSON.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "kernel/verdict.h"

namespace accelopt::report {

struct BenchRow {
  std::string task;
  std::string kernel;    // "baseline", "from <folder>", or the library kernel's name
  bool library = false;  // a library's kernel: shown for comparison, left out of the totals
  kernel::Verdict verdict;
};

// The table, 100 columns: status, latency with its interval (ms, us or ns), % of peak, bound and
// speedup per row, a failed row's message under it; then how many task kernels passed and their
// geometric mean % of peak.
void print_bench_table(std::ostream& out, const std::vector<BenchRow>& rows);

// One line per row, a header first; a figure the verdict lacks is 0.
void print_bench_csv(std::ostream& out, const std::vector<BenchRow>& rows);

// An array of {task, kernel, library, verdict}.
void print_bench_json(std::ostream& out, const std::vector<BenchRow>& rows);

}  // namespace accelopt::report
