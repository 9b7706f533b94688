#include "platform/cpu/checker.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace accelopt::platform::cpu {
namespace {

TEST(Checker, PassesWithinToleranceAndReportsErrors) {
  std::vector<float> reference = {1, 2, 3, 4}, output = {1, 2, 3, 4.00001f};
  OutputCheck check = check_output("out", output.data(), reference.data(), 4, 2e-5);
  EXPECT_TRUE(check.ok);
  EXPECT_GT(check.rel_l2_error, 0);
  EXPECT_NEAR(check.max_abs_error, 1e-5, 1e-6);
}

TEST(Checker, FailsBeyondTolerance) {
  std::vector<float> reference = {1, 2, 3, 4}, output = {1, 2, 3, 4.1f};
  OutputCheck check = check_output("out", output.data(), reference.data(), 4, 2e-5);
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.message.find("relative L2 error"), std::string::npos);
}

TEST(Checker, NonFinitePassesOnlyWhereTheReferenceHasTheSame) {
  std::vector<float> reference = {1, NAN, INFINITY}, same = {1, NAN, INFINITY};
  EXPECT_TRUE(check_output("out", same.data(), reference.data(), 3, 1e-5).ok);
  std::vector<float> wrong_sign = {1, NAN, -INFINITY};
  EXPECT_FALSE(check_output("out", wrong_sign.data(), reference.data(), 3, 1e-5).ok);
  std::vector<float> finite_ref = {1, 2, 3}, unwritten = {1, NAN, 3};
  OutputCheck check = check_output("out", unwritten.data(), finite_ref.data(), 3, 1e-5);
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.message.find("never written"), std::string::npos) << check.message;
}

}  // namespace
}  // namespace accelopt::platform::cpu
