// What `accelopt bench` prints: the table with its totals, CSV and JSON.
#include "report/bench_text.h"

#include <gtest/gtest.h>

#include <sstream>

#include "common/json.h"
#include "report/report_test_data.h"

namespace accelopt::report {
namespace {

// A task kernel at 20 % of peak, one that does not compile, and a library kernel at 80 %.
std::vector<BenchRow> rows() {
  kernel::Verdict fast = testing::passed(20, 2.0);
  fast.timing->latency_low = 0.4e-3;
  fast.timing->latency_high = 0.6e-3;
  return {{"silu", "baseline", false, fast},
          {"gemm", "baseline", false,
           testing::failed(kernel::Status::kCompileError, "error: expected ';'")},
          {"silu", "onednn", true, testing::passed(80, 8.0)}};
}

TEST(BenchText, TableRowsFailuresAndTotalsOfTheTaskKernels) {
  std::ostringstream out;
  print_bench_table(out, rows());
  // The library's 80 % is for comparison only: not in the count, not in the mean.
  EXPECT_EQ(out.str(),
            "task                   kernel       status                    latency "
            "[95% CI] % peak  bound speedup\n"
            "silu                   baseline     PASSED                   500 [400,"
            " 600] us   20.0 memory   2.00x\n"
            "gemm                   baseline     COMPILE_ERROR                     "
            "       -      -      -       -\n"
            "    error: expected ';'\n"
            "silu                   onednn       PASSED                       125 ["
            "0, 0] us   80.0 memory   8.00x\n"
            "\n"
            "1 of 2 task kernels passed; geometric mean of % of peak: 20.0 %\n");
}

TEST(BenchText, TableFitsOneHundredColumns) {
  kernel::Verdict slow = testing::passed(3.25, 1.0);
  slow.timing->latency_seconds = 0.012345;
  slow.timing->latency_low = 0.012301;
  slow.timing->latency_high = 0.012399;
  std::vector<BenchRow> wide = rows();
  wide.push_back({"rope_single_freq_apply", "baseline", false, slow});
  wide.push_back({"matmul_add_rmsnorm", "baseline", false,
                  testing::failed(kernel::Status::kIncorrectNumerical, "rel_l2 too large")});
  std::ostringstream out;
  print_bench_table(out, wide);
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
}

// FlashInfer-Bench's task names are longer than bench/cpu's: the task column widens for them and
// every row's other columns stay in line.
TEST(BenchText, ALongTaskNameWidensTheTaskColumnForEveryRow) {
  std::vector<BenchRow> table = rows();
  table.push_back(
      {"gqa_paged_prefill_causal_h32_kv8_d128_ps1", "baseline", false, testing::passed(3.6, 1.0)});
  std::ostringstream out;
  print_bench_table(out, table);
  std::istringstream lines(out.str());
  std::vector<size_t> kernel_columns;
  for (std::string line; std::getline(lines, line);) {
    for (const char* kernel : {"kernel ", "baseline ", "onednn "}) {
      if (size_t at = line.find(std::string(" ") + kernel); at != std::string::npos) {
        kernel_columns.push_back(at);
        break;
      }
    }
  }
  ASSERT_EQ(kernel_columns.size(), 5u) << out.str();
  for (size_t column : kernel_columns) EXPECT_EQ(column, kernel_columns.front()) << out.str();
  EXPECT_EQ(kernel_columns.front(), std::string("gqa_paged_prefill_causal_h32_kv8_d128_ps1").size())
      << out.str();
}

TEST(BenchText, NoMeanWhenNoTaskKernelPassed) {
  std::ostringstream out;
  print_bench_table(out, {rows()[1]});
  EXPECT_NE(out.str().find("0 of 1 task kernels passed; geometric mean of % of peak: -"),
            std::string::npos)
      << out.str();
}

TEST(BenchText, CsvHasAHeaderAndZerosForMissingFigures) {
  std::ostringstream out;
  print_bench_csv(out, rows());
  std::string text = out.str();
  EXPECT_EQ(text.rfind("task,kernel,status,latency_ms,latency_low_ms,latency_high_ms,"
                       "percent_of_peak,bound,speedup\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("\nsilu,baseline,PASSED,0.5,0.4,0.6,20,memory,2\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\ngemm,baseline,COMPILE_ERROR,0,0,0,0,,0\n"), std::string::npos) << text;
}

TEST(BenchText, JsonKeepsEachRowsVerdict) {
  std::ostringstream out;
  print_bench_json(out, rows());
  Json json = Json::parse(out.str());
  ASSERT_EQ(json.size(), 3u);
  EXPECT_EQ(json[2]["kernel"], "onednn");
  EXPECT_EQ(json[2]["library"], true);
  EXPECT_EQ(kernel::Verdict::from_json(json[1]["verdict"]).message, "error: expected ';'");
}

}  // namespace
}  // namespace accelopt::report
