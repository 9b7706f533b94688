// The key format is resume's contract with databases already written: these spellings must not
// change, and parse must read back exactly what str() writes and nothing else.
#include "search/candidate_key.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace accelopt::search {
namespace {

TEST(CandidateKey, SpellsEachPlaceAsStoredRunsDo) {
  EXPECT_EQ(CandidateKey::baseline().str(), "i0/baseline");
  EXPECT_EQ(CandidateKey::start_kernel().str(), "i0/start");
  CandidateKey slot = CandidateKey::beam_slot(3, 1);
  EXPECT_EQ(slot.str(), "i3/b1");
  EXPECT_EQ(slot.plans_answer(), "i3/b1/plans");
  CandidateKey plan = slot.plan(4);
  EXPECT_EQ(plan.implementations_answer(), "i3/b1/p4/impl");
  CandidateKey kernel = plan.implementation(0);
  EXPECT_EQ(kernel.str(), "i3/b1/p4/k0");
  EXPECT_EQ(kernel.repair(1).str(), "i3/b1/p4/k0/f1");
  EXPECT_EQ(kernel.repair(1).repair_answer(), "i3/b1/p4/k0/f1/fix");
  EXPECT_EQ(kernel.repair(2).place(), "b1/p4/k0/f2");
  EXPECT_EQ(CandidateKey::refinement(2, 17).plan(0).implementation(0).str(), "i2/refine/c17/p0/k0");
  EXPECT_EQ(summary_answer_key(3, 5, 9), "i3/summary/5-9");
}

TEST(CandidateKey, ParsesWhatItWritesAndNothingElse) {
  for (const char* text : {"i0/baseline", "i0/start", "i3/b1", "i3/b1/p4", "i3/b1/p4/k0",
                           "i12/b0/p11/k1/f2", "i2/refine/c17/p0/k0"}) {
    auto key = CandidateKey::parse(text);
    ASSERT_TRUE(key.has_value()) << text;
    EXPECT_EQ(key->str(), text);
  }
  EXPECT_EQ(CandidateKey::parse("i3/b1/p4/k0/f2")->repair_round(), 2);
  EXPECT_TRUE(CandidateKey::parse("i2/refine/c17/p0")->is_refinement());
  for (const char* text : {"", "i3", "x3/b1", "i3/b1/k0", "i3/b1/p4/k0/f0", "i3/b-1",
                           "i3/b1/p4/k0/f1/x", "i1/baseline", "i3/refine/p0", "i3/b1/p4x"}) {
    EXPECT_FALSE(CandidateKey::parse(text).has_value()) << text;
  }
}

TEST(CandidateKey, RefusesAPlaceOutOfOrder) {
  EXPECT_THROW(CandidateKey::beam_slot(1, 0).implementation(0), InternalError);
  EXPECT_THROW(CandidateKey::beam_slot(1, 0).plan(0).repair(1), InternalError);
  EXPECT_THROW(CandidateKey::baseline().plan(0), InternalError);
}

TEST(CandidateKey, SeedsDependOnThePlaceAndTheRunSeed) {
  CandidateKey kernel = CandidateKey::beam_slot(1, 0).plan(0).implementation(0);
  EXPECT_EQ(kernel.repair_seed(7, 1), kernel.repair_seed(7, 1));
  EXPECT_NE(kernel.repair_seed(7, 1), kernel.repair_seed(7, 2));
  EXPECT_NE(kernel.repair_seed(7, 1), kernel.repair_seed(8, 1));
  EXPECT_NE(CandidateKey::beam_slot(1, 0).plans_seed(7),
            CandidateKey::beam_slot(2, 0).plans_seed(7));
}

}  // namespace
}  // namespace accelopt::search
