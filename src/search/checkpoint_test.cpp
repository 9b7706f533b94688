// A typed checkpoint goes through the store's JSON and comes back equal; the JSON keeps the shape
// other readers (`accelopt runs`, `show`) and older runs rely on.
#include "search/checkpoint.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace accelopt::search {
namespace {

TEST(SearchCheckpoint, RoundTripsThroughTheStoresJson) {
  SearchCheckpoint checkpoint;
  checkpoint.iteration = 3;
  checkpoint.beam = {7, 4, 1};
  checkpoint.baseline = 1;
  checkpoint.wall_seconds = 12.5;
  checkpoint.stop_reason = "the evaluation budget (5) is spent";
  checkpoint.iterations = 6;
  store::Checkpoint stored = checkpoint.to_store(2);
  EXPECT_EQ(stored.run_id, 2);
  EXPECT_EQ(stored.state["beam"], Json::parse("[7, 4, 1]"));
  SearchCheckpoint back = SearchCheckpoint::from_store(stored);
  EXPECT_EQ(back.iteration, 3);
  EXPECT_EQ(back.beam, checkpoint.beam);
  EXPECT_EQ(back.baseline, 1);
  EXPECT_EQ(back.wall_seconds, 12.5);
  EXPECT_EQ(back.stop_reason, checkpoint.stop_reason);
  EXPECT_EQ(back.iterations, 6);
}

TEST(SearchCheckpoint, ReadsACheckpointWrittenBeforeExtensionsExisted) {
  store::Checkpoint old{1, 2, Json::parse(R"({"beam": [3], "baseline": 1, "stop": ""})"), ""};
  SearchCheckpoint checkpoint = SearchCheckpoint::from_store(old);
  EXPECT_EQ(checkpoint.beam, std::vector<int64_t>{3});
  EXPECT_EQ(checkpoint.wall_seconds, 0);
  EXPECT_FALSE(checkpoint.iterations.has_value());
  store::Checkpoint broken{1, 2, Json::parse(R"({"stop": ""})"), ""};
  EXPECT_THROW(SearchCheckpoint::from_store(broken), InternalError);
}

}  // namespace
}  // namespace accelopt::search
