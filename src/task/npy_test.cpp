#include "task/npy.h"

#include <gtest/gtest.h>

namespace accelopt::task {
namespace {

TEST(Npy, WritesAHeaderNumPyReads) {
  float values[6] = {1, 2, 3, 4, 5, 6};
  std::string bytes = npy_bytes("<f4", {2, 3}, values, sizeof values);
  ASSERT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  size_t header_length = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_length) % 64, 0u);
  std::string header = bytes.substr(10, header_length);
  EXPECT_NE(header.find("'shape': (2, 3)"), std::string::npos) << header;
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(bytes.size(), 10 + header_length + sizeof values);
  EXPECT_NE(npy_bytes("<f4", {3}, values, 12).find("'shape': (3,)"), std::string::npos);
}

}  // namespace
}  // namespace accelopt::task
