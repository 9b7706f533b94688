// A verdict survives JSON whatever its figures: NaN and ±inf come back as they went, and a null
// (what older databases hold for NaN) reads as NaN.
#include "kernel/verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace accelopt::kernel {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Verdict through_text(const Verdict& verdict) {
  return Verdict::from_json(Json::parse(verdict.to_json().dump()));
}

// Three significant digits in a unit that keeps them (issue 48: "0.01 ms (0.009788-0.0101 ms)").
TEST(Verdict, ALatencyIsWrittenToThreeSignificantDigits) {
  EXPECT_EQ(latency_text(1.0e-5), "10.0 µs");
  EXPECT_EQ(latency_text(9.788e-6), "9.79 µs");
  EXPECT_EQ(latency_text(0.0042), "4.20 ms");
  EXPECT_EQ(latency_text(0.1), "100 ms");
  EXPECT_EQ(latency_text(2.5), "2.50 s");
  EXPECT_EQ(latency_text(5.4e-8), "54.0 ns");
  EXPECT_EQ(latency_interval_text(1.0e-5, 9.788e-6, 1.01e-5),
            "10.0 µs (95% interval 9.79–10.1 µs)");
}

TEST(Verdict, NonFiniteFiguresRoundTrip) {
  Verdict verdict;
  verdict.status = Status::kIncorrectNumerical;
  verdict.correctness.rel_l2_error = kNan;
  verdict.correctness.max_abs_error = kInf;
  verdict.correctness.max_rel_error = -kInf;
  Timing timing;
  timing.speedup = kInf;
  timing.speedup_low = kNan;
  timing.latency_high = -kInf;
  timing.ratios = {kNan, 2.0, kInf};
  verdict.timing = timing;
  RooflineScore roofline;
  roofline.percent_of_peak = kNan;
  verdict.roofline = roofline;
  verdict.compile_seconds = kNan;

  Verdict back = through_text(verdict);
  EXPECT_TRUE(std::isnan(back.correctness.rel_l2_error));
  EXPECT_EQ(back.correctness.max_abs_error, kInf);
  EXPECT_EQ(back.correctness.max_rel_error, -kInf);
  EXPECT_EQ(back.timing->speedup, kInf);
  EXPECT_TRUE(std::isnan(back.timing->speedup_low));
  EXPECT_EQ(back.timing->latency_high, -kInf);
  ASSERT_EQ(back.timing->ratios.size(), 3u);
  EXPECT_TRUE(std::isnan(back.timing->ratios[0]));
  EXPECT_EQ(back.timing->ratios[1], 2.0);
  EXPECT_EQ(back.timing->ratios[2], kInf);
  EXPECT_TRUE(std::isnan(back.roofline->percent_of_peak));
  EXPECT_TRUE(std::isnan(back.compile_seconds));
}

TEST(Verdict, NullFiguresOfOlderDatabasesReadAsNaN) {
  Json json = Json::parse(R"({"status": "INCORRECT_NUMERICAL",
      "correctness": {"seeds_checked": 1, "rel_l2_error": null, "max_abs_error": null},
      "timing": {"speedup": null, "speedup_ci": [null, 1.0], "latency_ci": [null, null],
                 "ratios": [null, 1.0]},
      "compile_seconds": null})");
  Verdict verdict = Verdict::from_json(json);
  EXPECT_TRUE(std::isnan(verdict.correctness.rel_l2_error));
  EXPECT_TRUE(std::isnan(verdict.timing->speedup));
  EXPECT_TRUE(std::isnan(verdict.timing->speedup_low));
  EXPECT_EQ(verdict.timing->speedup_high, 1.0);
  EXPECT_TRUE(std::isnan(verdict.timing->ratios[0]));
  EXPECT_TRUE(std::isnan(verdict.compile_seconds));
}

TEST(Verdict, TextThatIsNotUtf8RoundTrips) {
  Verdict verdict;
  verdict.message = "bad byte \xe9";
  verdict.log = "k.cpp:1:4: // caf\xe9 \xff\xfe\n";
  Verdict back = through_text(verdict);
  EXPECT_EQ(back.message, verdict.message);
  EXPECT_EQ(back.log, verdict.log);
}

TEST(Verdict, TheMachinesLoadAndOffCpuSharesRoundTrip) {
  Verdict verdict;
  Timing timing;
  timing.speedup_low = timing.speedup_high = 1;
  timing.wall_clock_pairs = 7;
  timing.candidate_off_cpu = 0.9;
  timing.anchor_off_cpu = 0.001;
  timing.load = MachineLoad{0.75, 0.02, 31, 2.5, true, 0.125};
  verdict.timing = timing;

  Verdict back = through_text(verdict);
  ASSERT_TRUE(back.timing && back.timing->load);
  EXPECT_EQ(back.timing->wall_clock_pairs, 7);
  EXPECT_EQ(back.timing->candidate_off_cpu, 0.9);
  EXPECT_EQ(back.timing->anchor_off_cpu, 0.001);
  EXPECT_EQ(back.timing->load->other_cores_busy, 0.75);
  EXPECT_EQ(back.timing->load->steal, 0.02);
  EXPECT_EQ(back.timing->load->involuntary_switches, 31);
  EXPECT_EQ(back.timing->load->waited_seconds, 2.5);
  EXPECT_TRUE(back.timing->load->busy);
  EXPECT_EQ(back.timing->load->waited_for_core, 0.125);
}

TEST(Verdict, ARecordFromBeforeTheMachinesLoadStillReads) {
  Json old = Json::parse(R"({"status": "PASSED", "timing": {"anchor": "baseline", "speedup": 2,
      "speedup_ci": [1.9, 2.1], "latency_ci": [0.001, 0.002], "pairs": 10}})");
  Verdict verdict = Verdict::from_json(old);
  ASSERT_TRUE(verdict.timing);
  EXPECT_EQ(verdict.timing->speedup, 2);
  EXPECT_EQ(verdict.timing->wall_clock_pairs, 0);
  EXPECT_FALSE(verdict.timing->load);
}

}  // namespace
}  // namespace accelopt::kernel
