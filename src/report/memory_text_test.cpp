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

TEST(MemoryText, NoEntriesSaySo) {
  std::ostringstream out;
  print_memory_entries(out, {});
  EXPECT_EQ(out.str(), "the memory is empty\n");
}

}  // namespace
}  // namespace accelopt::report
