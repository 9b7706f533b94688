// The cores of evaluations timed at once: disjoint sets from the last core down, refused when the
// machine has too few.
#include "platform/core_sets.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.h"

namespace accelopt::platform {
namespace {

using Sets = std::vector<std::vector<int>>;

TEST(CoreSets, EachEvaluationGetsCoresOfItsOwnFromTheLastDown) {
  EXPECT_EQ(evaluation_cores(1, 1, {0, 1, 2, 3}), (Sets{{3}}));
  EXPECT_EQ(evaluation_cores(4, 1, {0, 1, 2, 3}), (Sets{{3}, {2}, {1}, {0}}));
  EXPECT_EQ(evaluation_cores(2, 2, {0, 1, 2, 3}), (Sets{{2, 3}, {0, 1}}));
  EXPECT_EQ(evaluation_cores(2, 1, {4, 6}), (Sets{{6}, {4}}));
}

TEST(CoreSets, TheAllowedCoresAreThisProcesssAffinity) {
  std::vector<int> allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  EXPECT_TRUE(std::is_sorted(allowed.begin(), allowed.end()));
  EXPECT_EQ(evaluation_cores(1, 1), (Sets{{allowed.back()}}));
}

TEST(CoreSets, MoreEvaluationsThanCoresAreRefused) {
  EXPECT_THROW(evaluation_cores(3, 1, {0, 1}), UserError);
  EXPECT_THROW(evaluation_cores(2, 2, {0, 1, 2}), UserError);
  try {
    evaluation_cores(4, 1, {0, 1});
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("this machine has 2"), std::string::npos);
  }
}

}  // namespace
}  // namespace accelopt::platform
