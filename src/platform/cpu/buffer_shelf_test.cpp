#include "platform/cpu/buffer_shelf.h"

#include <gtest/gtest.h>

#include <cstring>

namespace accelopt::platform::cpu {
namespace {

TEST(BufferShelf, LendsAKeptSetAgainZeroedAndOnlyForTheSameSizes) {
  BufferShelf shelf(1 << 20);
  std::unique_ptr<SharedBuffers> first = shelf.take({4096, 100});
  SharedBuffers* kept = first.get();
  std::memset(first->data(0), 0x5A, 4096);
  first->fill_canaries();
  shelf.put_back(std::move(first));
  EXPECT_EQ(shelf.idle_sets(), 1u);

  std::unique_ptr<SharedBuffers> other = shelf.take({4096, 101});
  EXPECT_NE(other.get(), kept);  // other sizes: a new set
  std::unique_ptr<SharedBuffers> again = shelf.take({4096, 100});
  ASSERT_EQ(again.get(), kept);
  EXPECT_EQ(shelf.idle_sets(), 0u);
  // Nothing of the last evaluation is left, in the buffers or their fences.
  const auto* bytes = static_cast<const unsigned char*>(again->data(0));
  for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(bytes[i], 0) << i;
  EXPECT_TRUE(again->damaged_canary().has_value());  // fences zeroed too: re-armed by each use
}

TEST(BufferShelf, KeepsNoMoreThanItsCapacityDroppingTheOldestFirst) {
  std::unique_ptr<SharedBuffers> probe = std::make_unique<SharedBuffers>(std::vector<size_t>{4096});
  uint64_t one_set = probe->total_bytes();
  BufferShelf shelf(2 * one_set);
  std::unique_ptr<SharedBuffers> a = shelf.take({4096}), b = shelf.take({4096}),
                                 c = shelf.take({4096});
  SharedBuffers* newest = c.get();
  shelf.put_back(std::move(a));
  shelf.put_back(std::move(b));
  shelf.put_back(std::move(c));
  EXPECT_EQ(shelf.idle_sets(), 2u);
  EXPECT_EQ(shelf.take({4096}).get(), newest);  // the most recently shelved first

  BufferShelf none(0);
  none.put_back(std::move(probe));
  EXPECT_EQ(none.idle_sets(), 0u);
}

}  // namespace
}  // namespace accelopt::platform::cpu
