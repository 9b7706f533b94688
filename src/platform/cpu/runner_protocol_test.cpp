#include "platform/cpu/runner_protocol.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace accelopt::platform::cpu {
namespace {

TEST(SlotLayout, EveryTensorOfEverySlotHasItsOwnBufferAndSlotZeroComesFirst) {
  SlotLayout layout{.inputs = 3, .outputs = 2, .input_slots = 4, .output_slots = 3};
  std::set<size_t> seen;
  for (int slot = 0; slot < layout.input_slots; ++slot) {
    for (size_t t = 0; t < layout.inputs; ++t) seen.insert(layout.input(slot, t));
  }
  for (int slot = 0; slot < layout.output_slots; ++slot) {
    for (size_t t = 0; t < layout.outputs; ++t) seen.insert(layout.output(slot, t));
  }
  EXPECT_EQ(seen.size(), layout.buffers());
  EXPECT_EQ(*seen.rbegin(), layout.buffers() - 1);
  // Slot 0 is the entry point's argument list: inputs, then outputs.
  EXPECT_EQ(layout.input(0, 2), 2u);
  EXPECT_EQ(layout.output(0, 0), 3u);
  EXPECT_EQ(layout.output(0, 1), 4u);
}

TEST(TurnSlots, ASeedPicksEverySlotAndAnotherSeedAnotherSchedule) {
  SlotLayout layout{.inputs = 1, .outputs = 1, .input_slots = 2, .output_slots = 4};
  std::set<int> inputs, outputs;
  std::vector<int> first, second;
  for (uint64_t call = 0; call < 64; ++call) {
    CallSlots slots = turn_slots(12345, call, layout);
    ASSERT_GE(slots.input, 0);
    ASSERT_LT(slots.input, layout.input_slots);
    ASSERT_GE(slots.output, 0);
    ASSERT_LT(slots.output, layout.output_slots);
    inputs.insert(slots.input);
    outputs.insert(slots.output);
    first.push_back(slots.input * layout.output_slots + slots.output);
    CallSlots other = turn_slots(54321, call, layout);
    second.push_back(other.input * layout.output_slots + other.output);
    EXPECT_EQ(turn_slots(12345, call, layout).output, slots.output);  // both ends agree
  }
  EXPECT_EQ(inputs.size(), 2u);
  EXPECT_EQ(outputs.size(), 4u);
  EXPECT_NE(first, second);
}

}  // namespace
}  // namespace accelopt::platform::cpu
