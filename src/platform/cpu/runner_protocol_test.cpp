#include "platform/cpu/runner_protocol.h"

#include <gtest/gtest.h>

#include <set>

namespace accelopt::platform::cpu {
namespace {

TEST(SlotLayout, EveryTensorOfEverySlotHasItsOwnBufferAndSlotZeroComesFirst) {
  SlotLayout layout{.inputs = 3, .outputs = 2, .slots = 4};
  std::set<size_t> seen;
  for (int slot = 0; slot < layout.slots; ++slot) {
    for (size_t t = 0; t < layout.inputs; ++t) seen.insert(layout.input(slot, t));
    for (size_t t = 0; t < layout.outputs; ++t) seen.insert(layout.output(slot, t));
  }
  EXPECT_EQ(seen.size(), layout.buffers());
  EXPECT_EQ(*seen.rbegin(), layout.buffers() - 1);
  // Slot 0 is the entry point's argument list: inputs, then outputs.
  EXPECT_EQ(layout.input(0, 2), 2u);
  EXPECT_EQ(layout.output(0, 0), 3u);
  EXPECT_EQ(layout.output(0, 1), 4u);
  EXPECT_EQ(layout.input(1, 0), 5u);
}

}  // namespace
}  // namespace accelopt::platform::cpu
