// What common/json.h promises beyond nlohmann: NaN and ±inf, and bytes that are not UTF-8, go
// through JSON text and come back exactly.
#include "common/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "common/utf8.h"

namespace accelopt {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Json, NonFiniteNumbersRoundTripThroughText) {
  Json json{{"nan", kNan}, {"inf", kInf}, {"minus", -kInf}, {"list", std::vector<double>{kNan, 1}}};
  Json back = Json::parse(json.dump());
  EXPECT_TRUE(std::isnan(back["nan"].get<double>()));
  EXPECT_EQ(back.value("inf", 0.0), kInf);
  EXPECT_EQ(back["minus"].get<float>(), -std::numeric_limits<float>::infinity());
  auto list = back["list"].get<std::vector<double>>();
  EXPECT_TRUE(std::isnan(list[0]));
  EXPECT_EQ(list[1], 1.0);
  EXPECT_EQ(Json(2.5).dump(), "2.5");  // finite numbers stay numbers
}

TEST(Json, NullReadsAsNaNAndOtherStringsAreStillTypeErrors) {
  EXPECT_TRUE(std::isnan(Json::parse("null").get<double>()));
  EXPECT_THROW(Json("fast").get<double>(), Json::type_error);
}

TEST(Json, BytesThatAreNotUtf8RoundTripThroughText) {
  std::string latin1 = "caf\xe9 \xff\xfe\x80 end";
  Json json{{"text", latin1}, {"list", std::vector<std::string>{latin1}}};
  Json back = Json::parse(json.dump());
  EXPECT_EQ(back["text"].get<std::string>(), latin1);
  EXPECT_EQ(back.value("text", ""), latin1);
  EXPECT_EQ(back["list"].get<std::vector<std::string>>()[0], latin1);
  EXPECT_EQ(Json("caf\xc3\xa9").dump(), "\"caf\xc3\xa9\"");       // UTF-8 stays as it is
  EXPECT_EQ(Json::parse(Json::parse(json.dump()).dump()), back);  // parsing twice changes nothing
}

TEST(Utf8, EveryByteStringRoundTrips) {
  std::string all;
  for (int byte = 0; byte < 256; ++byte) all += static_cast<char>(byte);
  // Truncated, overlong, surrogate and beyond-U+10FFFF sequences; the escapes' own block in text
  // that is not UTF-8 otherwise.
  for (std::string bytes :
       {all, std::string("\xe2\x82"), std::string("\xc0\xaf"), std::string("\xed\xa0\x80"),
        std::string("\xf4\x90\x80\x80"), std::string("\xf4\x8f\xbe\x80\xf4\x8f\xbf\xbf\xff"),
        std::string("a\xf4\x8f\xbe")}) {
    std::string escaped = escape_to_utf8(bytes);
    EXPECT_TRUE(is_valid_utf8(escaped));
    EXPECT_EQ(unescape_utf8(escaped), bytes);
  }
  std::string utf8 = "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
  EXPECT_EQ(escape_to_utf8(utf8), utf8);
}

}  // namespace
}  // namespace accelopt
