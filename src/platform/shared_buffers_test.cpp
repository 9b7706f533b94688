#include "platform/shared_buffers.h"

#include <gtest/gtest.h>

namespace accelopt::platform {
namespace {

TEST(SharedBuffers, PageAlignsEachBufferAndSeesWritesPastItsEnds) {
  SharedBuffers buffers({100, 4096, 12});
  for (size_t i = 0; i < buffers.count(); ++i) {
    EXPECT_EQ(buffers.offset(i) % 4096, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffers.data(i)) % 64, 0u);
  }
  EXPECT_EQ(buffers.damaged_canary(), std::nullopt);
  static_cast<char*>(buffers.data(1))[4096] = 0;  // one byte past the second buffer
  EXPECT_EQ(buffers.damaged_canary(), std::optional<size_t>(1));
  buffers.fill_canaries();
  EXPECT_EQ(buffers.damaged_canary(), std::nullopt);
  static_cast<char*>(buffers.data(0))[-1] = 0;  // one byte before the first
  EXPECT_EQ(buffers.damaged_canary(), std::optional<size_t>(0));
}

}  // namespace
}  // namespace accelopt::platform
