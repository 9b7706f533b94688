#include "platform/cpu/call_check.h"

#include <gtest/gtest.h>

#include <cstring>

#include "platform/evaluation.h"
#include "task/dtype.h"
#include "task/task.h"

namespace accelopt::platform::cpu {
namespace {

// Outputs of each width, with counts that are no multiple of what mark_unwritten fills at once:
// every element of every output holds its marker, and the inputs are left alone.
TEST(CallCheck, MarksFillEveryOutputElementOfEveryWidth) {
  task::Task task = task::parse_task_definition(R"json({
    "name": "t", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"x": {"dtype": "float32", "shape": ["N"]}},
    "outputs": {"wide": {"dtype": "float32", "shape": ["N"]},
                "half": {"dtype": "bfloat16", "shape": ["N"]},
                "byte": {"dtype": "float8_e4m3fn", "shape": ["N"]}},
    "workloads": {"w": {"axes": {"N": 40009}}},
    "roofline": {"bytes": "12*N"}})json",
                                                "/t", "t");
  SharedBuffers buffers(buffer_sizes(task, task.default_workload()));
  SlotLayout layout = single_slot(task);
  mark_unwritten(buffers, task, layout, 0);
  const auto* input = static_cast<const unsigned char*>(buffers.data(layout.input(0, 0)));
  for (size_t b = 0; b < buffers.size(layout.input(0, 0)); ++b) ASSERT_EQ(input[b], 0) << b;
  for (size_t o = 0; o < task.outputs.size(); ++o) {
    size_t width = task::dtype_size(task.outputs[o].dtype);
    // float8 has no marker of its own (task/dtype.h): its bytes are 0xA5.
    uint32_t marker = task::unwritten_marker(task.outputs[o].dtype).value_or(0xA5u);
    const auto* bytes = static_cast<const unsigned char*>(buffers.data(layout.output(0, o)));
    size_t count = buffers.size(layout.output(0, o)) / width;
    EXPECT_EQ(count, 40009u);
    for (size_t i = 0; i < count; ++i) {
      uint32_t bits = 0;
      std::memcpy(&bits, bytes + i * width, width);
      ASSERT_EQ(bits, marker) << task.outputs[o].name << " element " << i;
    }
  }
}

}  // namespace
}  // namespace accelopt::platform::cpu
