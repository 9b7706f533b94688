// The knob form of docs/knobs.md, exactly: what is a knob, what is not, and an edit that changes
// only the current value.
#include "kernel/knobs.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace accelopt::kernel {
namespace {

const char* const kSource =
    "#include \"accelopt_task.h\"\n"
    "constexpr int TILE_N = 256;  // knob: 64 128 256 512 1024\n"
    "constexpr int K_UNROLL = 2; // knob: 1 2 4 8   \n"
    "constexpr int NEG = -1;  // knob: -1 0 1\n"
    "extern \"C\" void kernel() {}\n";

TEST(Knobs, ReadsTheFormInFileOrder) {
  auto knobs = parse_knobs(kSource);
  ASSERT_EQ(knobs.size(), 3u);
  EXPECT_EQ(knobs[0].name, "TILE_N");
  EXPECT_EQ(knobs[0].value, 256);
  EXPECT_EQ(knobs[0].allowed, (std::vector<int>{64, 128, 256, 512, 1024}));
  EXPECT_EQ(knobs[0].line, 2);
  EXPECT_EQ(knobs[0].index(), 2);
  EXPECT_EQ(knobs[1].name, "K_UNROLL");
  EXPECT_EQ(knobs[2].value, -1);
}

TEST(Knobs, IgnoresLinesThatAreNotTheForm) {
  const char* const not_knobs[] = {
      "static constexpr int TILE = 4;  // knob: 2 4\n",
      "constexpr long TILE = 4;  // knob: 2 4\n",
      "constexpr int tile = 4;  // knob: 2 4\n",
      "constexpr int TILE = 2 * 2;  // knob: 2 4\n",
      "constexpr int TILE = 4;  // knob:\n",
      "  constexpr int TILE = 4;  // knob: 2 4\n",
      "constexpr int TILE = 4;  // knob: 2 4 // more\n",
      "constexpr int TILE = 4;  // knob: 2 4 4\n",
      "constexpr int TILE=4;  // knob: 2 4\n",
  };
  for (const char* line : not_knobs) EXPECT_TRUE(parse_knobs(line).empty()) << line;
  // No space before // is allowed by ` *`; a CRLF file reads the same.
  EXPECT_EQ(parse_knobs("constexpr int TILE = 4;// knob: 2 4\r\n").size(), 1u);
  // A repeated name keeps its first declaration.
  auto twice =
      parse_knobs("constexpr int A = 1;  // knob: 1 2\nconstexpr int A = 2;  // knob: 1 2\n");
  ASSERT_EQ(twice.size(), 1u);
  EXPECT_EQ(twice[0].value, 1);
}

TEST(Knobs, EditChangesOnlyTheCurrentValue) {
  std::string edited = set_knob(kSource, "TILE_N", 512);
  EXPECT_NE(edited.find("constexpr int TILE_N = 512;  // knob: 64 128 256 512 1024\n"),
            std::string::npos);
  EXPECT_EQ(edited.size(), std::string(kSource).size());
  EXPECT_EQ(parse_knobs(edited)[0].value, 512);
  EXPECT_EQ(set_knob(edited, "TILE_N", 256), kSource);
  std::string spaced = set_knob(kSource, "K_UNROLL", 8);
  EXPECT_NE(spaced.find("constexpr int K_UNROLL = 8; // knob: 1 2 4 8   \n"), std::string::npos);
  std::string crlf = set_knob("constexpr int T = 1;  // knob: 1 2\r\nint x;", "T", 2);
  EXPECT_EQ(crlf, "constexpr int T = 2;  // knob: 1 2\r\nint x;");
}

TEST(Knobs, EditRefusesUnknownKnobsAndValues) {
  EXPECT_THROW(set_knob(kSource, "TILE_M", 64), UserError);
  EXPECT_THROW(set_knob(kSource, "TILE_N", 100), UserError);
}

}  // namespace
}  // namespace accelopt::kernel
