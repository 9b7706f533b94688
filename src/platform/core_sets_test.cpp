// The cores of evaluations timed at once: disjoint sets from the last core down, refused when the
// machine has too few.
#include "platform/core_sets.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "common/error.h"
#include "common/files.h"

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

TEST(CoreClaims, ASecondEvaluationTimesOnAnotherCoreAndAThirdShares) {
  TempDir directory("accelopt-core-claims");
  CoreClaim first = claim_cores({1}, {0, 1}, directory.path());
  EXPECT_TRUE(first.held());
  EXPECT_EQ(first.cores(), (std::vector<int>{1}));
  CoreClaim second = claim_cores({1}, {0, 1}, directory.path());
  EXPECT_TRUE(second.held());
  EXPECT_EQ(second.cores(), (std::vector<int>{0}));
  CoreClaim third = claim_cores({1}, {0, 1}, directory.path());
  EXPECT_FALSE(third.held()) << "no core left: the preferred one, shared";
  EXPECT_EQ(third.cores(), (std::vector<int>{1}));

  first = CoreClaim();  // released
  CoreClaim fourth = claim_cores({1}, {0, 1}, directory.path());
  EXPECT_TRUE(fourth.held());
  EXPECT_EQ(fourth.cores(), (std::vector<int>{1}));
}

// Issue 45: on two cores every compile was pinned to the one core not kept for timing, with all
// else the machine ran, although nothing timed on the other until the compile was done.
TEST(CoreClaims, CompilesGoWhereNoEvaluationTimesNow) {
  TempDir directory("accelopt-core-claims");
  CoreClaim claimed = claim_cores({3}, {0, 1, 2, 3}, directory.path());
  EXPECT_EQ(untimed_cores({0, 1, 2, 3}, directory.path()), (std::vector<int>{0, 1, 2, 3}))
      << "claimed, not yet timing: its evaluation compiles there too";
  CoreClaim timing = mark_timing(claimed.cores(), directory.path());
  EXPECT_TRUE(timing.held());
  EXPECT_EQ(untimed_cores({0, 1, 2, 3}, directory.path()), (std::vector<int>{0, 1, 2}));
  timing = CoreClaim();
  EXPECT_EQ(untimed_cores({0, 1, 2, 3}, directory.path()), (std::vector<int>{0, 1, 2, 3}));
}

TEST(CoreClaims, ManyThreadTasksGetAWholeSetOrShare) {
  TempDir directory("accelopt-core-claims");
  CoreClaim one = claim_cores({2}, {0, 1, 2, 3}, directory.path());
  CoreClaim two = claim_cores({0, 1}, {0, 1, 2, 3}, directory.path());
  EXPECT_EQ(two.cores(), (std::vector<int>{0, 1}));
  CoreClaim three = claim_cores({0, 1}, {0, 1, 2, 3}, directory.path());
  EXPECT_FALSE(three.held()) << "only core 3 is free: too few for two";
  EXPECT_EQ(three.cores(), (std::vector<int>{0, 1}));
  one = CoreClaim();
  CoreClaim four = claim_cores({0, 1}, {0, 1, 2, 3}, directory.path());
  EXPECT_TRUE(four.held());
  EXPECT_EQ(four.cores(), (std::vector<int>{3, 2}));
}

TEST(CoreClaims, AClaimHoldsAgainstAnotherProcessUntilItDies) {
  TempDir directory("accelopt-core-claims");
  int ready[2], done[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(done), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    CoreClaim held = claim_cores({1}, {0, 1}, directory.path());
    char byte = held.held() ? 'y' : 'n';
    (void)!::write(ready[1], &byte, 1);
    (void)!::read(done[0], &byte, 1);  // until the parent has looked
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  EXPECT_EQ(byte, 'y');
  EXPECT_EQ(claim_cores({1}, {0, 1}, directory.path()).cores(), (std::vector<int>{0}));
  (void)!::write(done[1], "x", 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(claim_cores({1}, {0, 1}, directory.path()).cores(), (std::vector<int>{1}))
      << "the child's claim ended with it";
  for (int fd : {ready[0], ready[1], done[0], done[1]}) ::close(fd);
}

}  // namespace
}  // namespace accelopt::platform
