// `accelopt eval` reads the workspace: a kernel's stored figures beside the new measurement.
#include "report/stored_figures.h"

#include <gtest/gtest.h>

#include "common/hash.h"
#include "report/report_test_data.h"
#include "search/kept_baseline.h"

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

// Where the workspace keeps a quiet baseline of the task, `eval` derives the new kernel's latency
// and % of peak from it, as a run would; not from a kept baseline of another source or probe.
TEST(StoredFigures, EvalDerivesLatencyAndPercentFromTheKeptBaseline) {
  kernel::Verdict verdict = timed(2, 1.9, 2.1);
  verdict.timing->anchor_latency_seconds = 0.0125;  // this evaluation read the baseline busy
  verdict.roofline = kernel::RooflineScore{};
  verdict.roofline->bound = "memory";
  verdict.roofline->ceiling_probe = 40;
  store::KeptBaseline kept;
  kept.baseline_hash = sha256_hex("the baseline");
  kept.probe = search::probe_identity(*verdict.roofline);
  kept.latency_seconds = 0.010;
  kept.percent_of_peak = 20;
  kept.run_id = 3;
  kept.measured_at = "2026-12-07T05:00:00Z";
  std::string line = kept_baseline_text(kept, "the baseline", verdict);
  EXPECT_NE(line.find("baseline 10.0 ms measured quietly by run 3"), std::string::npos) << line;
  EXPECT_NE(line.find("at this speedup 5.00 ms, 40.0 % of peak"), std::string::npos) << line;
  EXPECT_NE(line.find("reading of the baseline, 12.5 ms"), std::string::npos) << line;
  EXPECT_EQ(kept_baseline_text(kept, "another baseline", verdict), "");
  kept.probe = "memory ceiling 41";
  EXPECT_EQ(kept_baseline_text(kept, "the baseline", verdict), "");
  EXPECT_EQ(kept_baseline_text(std::nullopt, "the baseline", verdict), "");
}

}  // namespace
}  // namespace accelopt::report
