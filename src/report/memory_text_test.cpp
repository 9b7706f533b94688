// What `accelopt memory list` prints.
#include "report/memory_text.h"

#include <gtest/gtest.h>

#include <sstream>

namespace accelopt::report {
namespace {

store::MemoryEntryRecord entry(int64_t id, bool positive, const std::string& title) {
  store::MemoryEntryRecord record;
  record.id = id;
  record.run_id = 3;
  record.task = "silu";
  record.positive = positive;
  record.speedup = positive ? 1.42 : 0.8;
  record.insight = Json{{"title", title}};
  return record;
}

TEST(MemoryText, ALinePerEntryWithItsRunSignAndTitle) {
  std::ostringstream out;
  print_memory_entries(out, {entry(1, true, "## Vectorize\nthe loop"), entry(2, false, "")});
  EXPECT_EQ(out.str(),
            "#1     silu           run 3   + 1.42x  Vectorize: the loop\n"
            "#2     silu           run 3   - 0.80x  \n");
}

// A lesson found again says how often, and how often a run measured its rewrite the other way.
TEST(MemoryText, ALessonFoundAgainSaysHowOftenAndHowOftenTheOtherWay) {
  store::MemoryEntryRecord found = entry(4, true, "Chunks of 64");
  found.evidence = Json::array({Json{{"run", 5}, {"positive", true}, {"speedup", 1.3}},
                                Json{{"run", 6}, {"positive", false}, {"speedup", 0.97}},
                                Json{{"run", 7}, {"speedup", 1.1}}});
  std::ostringstream out;
  print_memory_entries(out, {found});
  EXPECT_EQ(out.str(),
            "#4     silu           run 3   + 1.42x  Chunks of 64  (found 4 times, 1 of them "
            "slower)\n");
}

TEST(MemoryText, NoEntriesSaySo) {
  std::ostringstream out;
  print_memory_entries(out, {});
  EXPECT_EQ(out.str(), "the memory is empty\n");
}

}  // namespace
}  // namespace accelopt::report
