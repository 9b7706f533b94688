#include "platform/checker.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace accelopt::platform {
namespace {

task::Tolerance tolerance(double rel_l2, double atol = 1e-5, double rtol = 1e-3) {
  return {rel_l2, atol, rtol};
}

TEST(Checker, PassesWithinToleranceAndReportsErrors) {
  std::vector<float> reference = {1, 2, 3, 4}, output = {1, 2, 3, 4.00001f};
  OutputCheck check = check_output("out", output.data(), reference.data(), 4, tolerance(2e-5));
  EXPECT_TRUE(check.ok) << check.message;
  EXPECT_GT(check.rel_l2_error, 0);
  EXPECT_NEAR(check.max_abs_error, 1e-5, 1e-6);
  EXPECT_EQ(check.elements_outside, 0u);
}

TEST(Checker, FailsBeyondTolerance) {
  std::vector<float> reference = {1, 2, 3, 4}, output = {1, 2, 3, 4.1f};
  OutputCheck check = check_output("out", output.data(), reference.data(), 4, tolerance(2e-5));
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.message.find("relative L2 error"), std::string::npos);
}

// Zeros in a small part of a tensor hardly move its norm: only the per-element check sees them.
TEST(Checker, FailsSmallWrongPartsTheNormHides) {
  std::vector<float> reference(10000, 1.0f);
  reference[0] = 1000;  // one large element dominates the norm
  std::vector<float> output = reference;
  for (size_t i = 9990; i < 10000; ++i) output[i] = 0;
  OutputCheck check =
      check_output("out", output.data(), reference.data(), reference.size(), tolerance(2e-2));
  EXPECT_LT(check.rel_l2_error, 2e-2);
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.elements_outside, 10u);
  EXPECT_NE(check.message.find("wrong at 10 of 10000 elements"), std::string::npos)
      << check.message;
  EXPECT_NE(check.message.find("index 99"), std::string::npos) << check.message;
}

TEST(Checker, AtolCoversElementsNearZeroAndRtolTheRest) {
  std::vector<float> reference = {0, 1000}, output = {5e-6f, 1000.5f};
  EXPECT_TRUE(
      check_output("out", output.data(), reference.data(), 2, tolerance(1e-3, 1e-5, 1e-3)).ok);
  EXPECT_FALSE(
      check_output("out", output.data(), reference.data(), 2, tolerance(1e-3, 1e-6, 1e-3)).ok);
  EXPECT_FALSE(
      check_output("out", output.data(), reference.data(), 2, tolerance(1e-3, 1e-5, 1e-4)).ok);
}

// A sum's rounding grows with its terms: an element that cancels to near zero in an output whose
// typical magnitude is 1000 is off by what the large ones are. atol_rms allows that much at any
// scale, where a fixed atol suits one scale only.
TEST(Checker, AtolRmsGrowsTheAllowanceWithTheOutputsScale) {
  for (float scale : {1.0f, 16.0f, 256.0f}) {
    std::vector<float> reference(1000, 1000 * scale), output = reference;
    reference[7] = 0.5f * scale;
    output[7] = reference[7] + 0.01f * scale;  // 1e-5 of the rms, beyond rtol's 1e-3 of 0.5
    task::Tolerance fixed = tolerance(2e-5, 1e-5, 1e-3);
    OutputCheck without = check_output("out", output.data(), reference.data(), 1000, fixed);
    EXPECT_FALSE(without.ok) << scale;
    task::Tolerance scaled = fixed;
    scaled.atol_rms = 2e-5;
    EXPECT_TRUE(check_output("out", output.data(), reference.data(), 1000, scaled).ok) << scale;
    // Twice the allowance off still fails, and the message says what the allowance was made of.
    output[7] = reference[7] + 0.05f * scale;
    OutputCheck beyond = check_output("out", output.data(), reference.data(), 1000, scaled);
    EXPECT_FALSE(beyond.ok) << scale;
    EXPECT_NE(beyond.message.find("* rms"), std::string::npos) << beyond.message;
  }
}

TEST(Checker, AtolRmsLeavesNonFiniteReferenceValuesOutOfTheScale) {
  std::vector<float> reference = {1, 1, 1, INFINITY}, output = {1, 1, 1.00001f, INFINITY};
  task::Tolerance scaled = tolerance(1e-3, 0, 0);
  scaled.atol_rms = 2e-5;  // 2e-5 of an rms of 1, not of infinity
  EXPECT_TRUE(check_output("out", output.data(), reference.data(), 4, scaled).ok);
  output[2] = 1.001f;
  EXPECT_FALSE(check_output("out", output.data(), reference.data(), 4, scaled).ok);
}

TEST(Checker, NonFinitePassesOnlyWhereTheReferenceHasTheSame) {
  std::vector<float> reference = {1, NAN, INFINITY}, same = {1, NAN, INFINITY};
  EXPECT_TRUE(check_output("out", same.data(), reference.data(), 3, tolerance(1e-5)).ok);
  std::vector<float> wrong_sign = {1, NAN, -INFINITY};
  EXPECT_FALSE(check_output("out", wrong_sign.data(), reference.data(), 3, tolerance(1e-5)).ok);
  std::vector<float> finite_ref = {1, 2, 3}, unwritten = {1, NAN, 3};
  OutputCheck check = check_output("out", unwritten.data(), finite_ref.data(), 3, tolerance(1e-5));
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.message.find("never written"), std::string::npos) << check.message;
}

// Long outputs are checked a block at a time, the blocks where all is well at once: one element
// that is not, anywhere among 100 000, is found and named as it was one element at a time.
TEST(Checker, OneBadElementAmongManyIsFoundWhereverItLies) {
  const size_t count = 100'000;
  std::vector<float> reference(count);
  for (size_t i = 0; i < count; ++i) reference[i] = std::sin(0.001f * static_cast<float>(i)) + 2;
  OutputCheck clean =
      check_output("out", reference.data(), reference.data(), count, tolerance(1e-5));
  EXPECT_TRUE(clean.ok) << clean.message;
  EXPECT_EQ(clean.rel_l2_error, 0);
  for (size_t at : {size_t{0}, size_t{4095}, size_t{4096}, size_t{77'777}, count - 1}) {
    std::vector<float> output = reference;
    output[at] += 0.01f;  // within the norm's tolerance, outside the element's
    OutputCheck off = check_output("out", output.data(), reference.data(), count, tolerance(1e-3));
    EXPECT_FALSE(off.ok);
    EXPECT_EQ(off.elements_outside, 1u);
    EXPECT_NE(off.message.find("worst at index " + std::to_string(at)), std::string::npos)
        << off.message;
    EXPECT_NEAR(off.max_abs_error, 0.01, 1e-4);

    output = reference;
    output[at] = NAN;
    OutputCheck unwritten =
        check_output("out", output.data(), reference.data(), count, tolerance(1e-3));
    EXPECT_EQ(unwritten.non_finite_mismatches, 1u);
    EXPECT_NE(unwritten.message.find("first at index " + std::to_string(at)), std::string::npos)
        << unwritten.message;

    std::vector<float> infinite = reference;  // a finite output where the reference is not
    infinite[at] = INFINITY;
    OutputCheck finite_for_infinite =
        check_output("out", reference.data(), infinite.data(), count, tolerance(1e-3));
    EXPECT_EQ(finite_for_infinite.non_finite_mismatches, 1u);
    EXPECT_NE(finite_for_infinite.message.find("first at index " + std::to_string(at)),
              std::string::npos)
        << finite_for_infinite.message;
  }
}

// The figures of an output that passes come from the fast path (check_clean_block's vector
// lanes): they must be the ones a plain loop over every element gives.
TEST(Checker, FiguresOfAPassingOutputAreThoseOfEveryElement) {
  const size_t count = 10'003;  // blocks, and a tail of fewer than a vector's lanes
  std::vector<float> reference(count), output(count);
  double error_squares = 0, reference_squares = 0, max_abs = 0, max_rel = 0;
  for (size_t i = 0; i < count; ++i) {
    reference[i] = std::sin(0.37f * static_cast<float>(i)) * 3;
    output[i] = reference[i] * (1 + 1e-6f * std::cos(static_cast<float>(i)));
    double difference = std::fabs(static_cast<double>(output[i]) - reference[i]);
    error_squares += difference * difference;
    reference_squares += static_cast<double>(reference[i]) * reference[i];
    max_abs = std::max(max_abs, difference);
    max_rel = std::max(max_rel, difference / std::max(std::fabs(double{reference[i]}), 1e-30));
  }
  OutputCheck check = check_output("out", output.data(), reference.data(), count, tolerance(1e-3));
  ASSERT_TRUE(check.ok) << check.message;
  EXPECT_GT(max_abs, 0);
  EXPECT_EQ(check.max_abs_error, max_abs);
  EXPECT_EQ(check.max_rel_error, max_rel);
  EXPECT_NEAR(check.rel_l2_error, std::sqrt(error_squares / reference_squares),
              1e-12 * std::sqrt(error_squares / reference_squares));
}

// Two outputs, one large and one small: each is held to its own tolerance, so an error in the
// small one is not hidden by the other's scale.
TEST(Checker, EachOutputHasItsOwnTolerance) {
  task::Task task = task::parse_task_definition(R"json({
    "name": "two", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"x": {"dtype": "float32", "shape": ["N"]}},
    "outputs": {"big": {"dtype": "float32", "shape": ["N"]}, "small": {"dtype": "float32", "shape": ["N"]}},
    "workloads": {"w": {"axes": {"N": 2}}},
    "tolerance": {"rel_l2": 1e-3, "atol": 1, "rtol": 1e-3, "outputs": {"small": {"atol": 1e-6}}},
    "roofline": {"bytes": "12*N"}})json",
                                                "/t", "t");
  std::vector<std::vector<float>> reference = {{1000, 1000}, {1e-3f, 1e-3f}};
  std::vector<float> big = {1000, 1000}, small = {1e-3f, 1.1e-3f};
  OutputCheck check = check_outputs(task, nullptr, {big.data(), small.data()}, reference);
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.message.find("output 'small'"), std::string::npos) << check.message;
}

// Each output starts from its dtype's tolerance: bfloat16's rounding passes where float32's
// tolerance would refuse it, a 2 % error does not, and an integer output must be exact.
TEST(Checker, EachOutputUsesItsDTypesDefaultTolerance) {
  task::Task task = task::parse_task_definition(R"json({
    "name": "t", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"x": {"dtype": "float32", "shape": ["N"]}},
    "outputs": {"half": {"dtype": "bfloat16", "shape": ["N"]},
                "wide": {"dtype": "float32", "shape": ["N"]},
                "count": {"dtype": "int32", "shape": ["N"]}},
    "workloads": {"w": {"axes": {"N": 1000}}}, "roofline": {"bytes": "N"}})json",
                                                "/t", "t");
  EXPECT_DOUBLE_EQ(task.tolerance("half").rtol, 1e-2);
  EXPECT_DOUBLE_EQ(task.tolerance("half").atol, 1e-2);
  EXPECT_DOUBLE_EQ(task.tolerance("wide").rtol, 1e-3);
  EXPECT_DOUBLE_EQ(task.tolerance("count").atol, 0);
  EXPECT_DOUBLE_EQ(task.rel_l2_tolerance, 1e-2) << "the first output's";

  std::vector<float> reference(1000), rounded(1000), two_percent(1000);
  for (size_t i = 0; i < reference.size(); ++i) {
    reference[i] = std::sin(static_cast<float>(i)) * 3.0f;
    rounded[i] = task::round_to_dtype(task::DType::kBFloat16, reference[i]);
    two_percent[i] = task::round_to_dtype(task::DType::kBFloat16, reference[i] * 1.02f);
  }
  auto check = [&](const std::string& output, const std::vector<float>& values) {
    return check_output(output, values.data(), reference.data(), values.size(),
                        task.tolerance(output));
  };
  EXPECT_TRUE(check("half", rounded).ok) << check("half", rounded).message;
  EXPECT_FALSE(check("wide", rounded).ok) << "float32's tolerance refuses bfloat16 rounding";
  EXPECT_FALSE(check("half", two_percent).ok);

  std::vector<float> counts(1000, 7.0f), off_by_one = counts;
  off_by_one[500] = 8;
  auto exact = [&](const std::vector<float>& values) {
    return check_output("count", values.data(), counts.data(), values.size(),
                        task.tolerance("count"));
  };
  EXPECT_TRUE(exact(counts).ok);
  EXPECT_FALSE(exact(off_by_one).ok);

  // A definition's own tolerance still wins over the dtype's.
  task::Task loose = task::parse_task_definition(R"json({
    "name": "t", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"x": {"dtype": "float32", "shape": ["N"]}},
    "outputs": {"half": {"dtype": "bfloat16", "shape": ["N"]}},
    "tolerance": {"rtol": 0.05, "rel_l2": 0.05},
    "workloads": {"w": {"axes": {"N": 1000}}}, "roofline": {"bytes": "N"}})json",
                                                 "/t", "t");
  EXPECT_TRUE(
      check_output("half", two_percent.data(), reference.data(), 1000, loose.tolerance("half")).ok);
  EXPECT_DOUBLE_EQ(loose.tolerance("half").atol, 1e-2);
}

}  // namespace
}  // namespace accelopt::platform
