// `accelopt eval` reads the workspace: a kernel's stored figures beside the new measurement.
#include "report/stored_figures.h"

#include <gtest/gtest.h>

#include "report/report_test_data.h"

namespace accelopt::report {
namespace {

std::filesystem::path silu() {
  return std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/cpu/silu";
}

kernel::Verdict timed(double speedup, double low, double high) {
  kernel::Verdict verdict;
  verdict.status = kernel::Status::kPassed;
  verdict.timing = kernel::Timing{};
  verdict.timing->speedup = speedup;
  verdict.timing->speedup_low = low;
  verdict.timing->speedup_high = high;
  return verdict;
}

TEST(StoredFigures, FindsTheSameSourceAndFlagsADisjointInterval) {
  auto store = store::Store::open(":memory:");
  int64_t run = testing::write_sample_run(*store, silu());
  std::vector<store::CandidateRecord> candidates = store->candidates(run);
  const store::CandidateRecord* five = nullptr;
  for (const auto& candidate : candidates) {
    if (candidate.id == 5) five = &candidate;
  }
  ASSERT_NE(five, nullptr);
  std::string baseline = candidates.front().source;
  std::vector<StoredFigure> stored =
      stored_figures(*store, "silu", "small", five->source, baseline);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].run, run);
  EXPECT_EQ(stored[0].candidate, 5);
  EXPECT_DOUBLE_EQ(stored[0].figures.speedup, 1.6);  // the run's figure: [1.552, 1.648]
  EXPECT_TRUE(stored[0].same_baseline);

  std::string agrees = stored_figures_text(stored, timed(1.58, 1.50, 1.66));
  EXPECT_NE(agrees.find("stored     run 1 #5: 1.60x [1.55, 1.65]"), std::string::npos) << agrees;
  EXPECT_NE(agrees.find("agrees with this evaluation"), std::string::npos) << agrees;
  EXPECT_EQ(agrees.find("DISJOINT"), std::string::npos) << agrees;

  std::string apart = stored_figures_text(stored, timed(1.30, 1.25, 1.35));
  EXPECT_NE(apart.find("DISJOINT: this evaluation's 1.30x [1.25, 1.35] and run 1's 1.60x"),
            std::string::npos)
      << apart;

  // Another workload, another source or another baseline: nothing, or said not to compare.
  EXPECT_TRUE(stored_figures(*store, "silu", "cpu", five->source, baseline).empty());
  EXPECT_TRUE(stored_figures(*store, "silu", "small", "// another\n", baseline).empty());
  std::vector<StoredFigure> other = stored_figures(*store, "silu", "small", five->source, "x");
  ASSERT_EQ(other.size(), 1u);
  EXPECT_NE(stored_figures_text(other, timed(1.30, 1.25, 1.35)).find("against another baseline"),
            std::string::npos);
  EXPECT_TRUE(stored_figures_text({}, timed(1.30, 1.25, 1.35)).empty());
}

}  // namespace
}  // namespace accelopt::report
