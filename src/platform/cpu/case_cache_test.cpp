#include "platform/cpu/case_cache.h"

#include <gtest/gtest.h>

namespace accelopt::platform::cpu {
namespace {

// A case of `floats` input values and as many answers, told apart by its seed.
SharedCase made_case(uint64_t seed, size_t floats) {
  ReferenceCase reference_case;
  reference_case.seed = seed;
  reference_case.inputs.push_back({task::DType::kFloat32, std::vector<unsigned char>(floats * 4)});
  reference_case.outputs.push_back(std::vector<float>(floats));
  return std::make_shared<const ReferenceCase>(std::move(reference_case));
}

TEST(CaseCache, RenewsTheCaseKeptLongestEachTime) {
  CaseCache cache(1 << 20);
  EXPECT_FALSE(cache.cases("silu"));
  cache.keep_cases("silu", {made_case(1, 8), made_case(2, 8), made_case(3, 8)});
  for (size_t expected : {0, 1, 2, 0}) {
    std::optional<CaseCache::Kept> kept = cache.cases("silu");
    ASSERT_TRUE(kept);
    EXPECT_EQ(kept->renew, expected);
    cache.renewed("silu", kept->renew, made_case(10 + expected, 8));
  }
  std::optional<CaseCache::Kept> kept = cache.cases("silu");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->cases[0]->seed, 10u);
  EXPECT_EQ(kept->cases[1]->seed, 11u);
  EXPECT_EQ(kept->cases[2]->seed, 12u);
  EXPECT_FALSE(cache.cases("adamw"));
}

TEST(CaseCache, DropsWhatWasUsedLongestAgoAndNeverKeepsWhatCannotFit) {
  CaseCache cache(uint64_t{3} * 2 * 4 * 100);  // three cases of 100 floats in and 100 out
  cache.keep_cases("a", {made_case(1, 100)});
  cache.keep_cases("b", {made_case(2, 100)});
  ASSERT_TRUE(cache.cases("a"));  // "a" used last: "b" goes first
  cache.keep_cases("c", {made_case(3, 100), made_case(4, 100)});
  EXPECT_TRUE(cache.cases("a"));
  EXPECT_FALSE(cache.cases("b"));
  EXPECT_TRUE(cache.cases("c"));
  EXPECT_LE(cache.bytes(), 3u * 2 * 4 * 100);

  cache.keep_cases("huge", {made_case(5, 1000)});
  EXPECT_FALSE(cache.cases("huge"));
  CaseCache none(0);
  none.keep_cases("a", {made_case(1, 1)});
  EXPECT_FALSE(none.cases("a"));
}

// Constant inputs are kept beside the cases and counted once, however many cases and pool cases
// hold them: a MoE's 1.41 GB of weights in seven cases is 1.41 GB kept, not 9.9.
TEST(CaseCache, KeepsConstantInputsAndCountsEachArrayOnce) {
  CaseCache cache(uint64_t{1} << 20);
  EXPECT_EQ(cache.constants("moe"), nullptr);
  auto constants = std::make_shared<const ConstantInputs>(ConstantInputs{
      task::TensorValues(task::DType::kFloat8E4M3, std::vector<unsigned char>(100000)), {}});
  cache.keep_constants("moe", constants);
  EXPECT_EQ(cache.constants("moe"), constants);
  EXPECT_EQ(cache.bytes(), 100000u);

  std::vector<SharedCase> cases;
  for (uint64_t seed = 1; seed <= 7; ++seed) {
    ReferenceCase reference_case;
    reference_case.seed = seed;
    reference_case.inputs = {
        (*constants)[0], task::TensorValues(task::DType::kFloat32, std::vector<unsigned char>(40))};
    reference_case.outputs.push_back(std::vector<float>(10));
    cases.push_back(std::make_shared<const ReferenceCase>(std::move(reference_case)));
  }
  cache.keep_cases("moe", cases);
  EXPECT_EQ(cache.bytes(), 100000u + 7 * (40 + 40));
  ASSERT_TRUE(cache.cases("moe"));
  EXPECT_EQ(cache.constants("moe"), constants);
}

TEST(CaseCache, KeepsAPoolAsDrawn) {
  CaseCache cache(1 << 20);
  EXPECT_EQ(cache.pool("silu"), nullptr);
  auto pool = std::make_shared<const std::vector<ReferenceCase>>(std::vector<ReferenceCase>(2));
  cache.keep_pool("silu", pool);
  EXPECT_EQ(cache.pool("silu"), pool);
  EXPECT_FALSE(cache.cases("silu"));  // a pool alone holds no correctness cases
}

}  // namespace
}  // namespace accelopt::platform::cpu
