// A case's tensors as the CUDA runner copies them to the device: each at its dtype's width,
// encoded and decoded by task/dtype.h's functions (the CPU harness's), outputs cleared to NaN.
// No GPU needed: the runner copies these bytes and never reads them.
#include "platform/cuda/case_tensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "common/error.h"
#include "platform/evaluation.h"

namespace accelopt::platform::cuda {
namespace {

// The dtypes of a paged-attention task: bfloat16 data, int32 indices, a float32 scalar; a float16
// and an int32 output besides the float32 one.
task::Task mixed_task() {
  return task::parse_task_definition(R"json({
    "name": "mixed", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"x": {"dtype": "bfloat16", "shape": ["N"]},
               "index": {"dtype": "int32", "shape": ["N"],
                         "distribution": {"kind": "integer", "low": 0, "high": 4}},
               "scale": {"dtype": "float32", "shape": []}},
    "outputs": {"y": {"dtype": "float16", "shape": ["N"]},
                "count": {"dtype": "int32", "shape": ["N"]},
                "total": {"dtype": "float32", "shape": []}},
    "workloads": {"w": {"axes": {"N": 3}}}, "roofline": {"bytes": "8*N"}})json",
                                     "/t", "t");
}

ReferenceCase mixed_case() {
  ReferenceCase reference_case;
  reference_case.inputs = encode_inputs(mixed_task(), {{1.5f, -2.0f, 0.25f}, {3, 0, 2}, {0.125f}});
  reference_case.outputs = {{1, 2, 3}, {1, 1, 1}, {6}};
  return reference_case;
}

uint16_t half_word(const SharedBuffers& buffers, size_t index, size_t element) {
  uint16_t bits = 0;
  std::memcpy(&bits, static_cast<const char*>(buffers.data(index)) + 2 * element, 2);
  return bits;
}

TEST(CaseTensors, BuffersAreSizedAtEachTensorsStorageWidth) {
  task::Task task = mixed_task();
  EXPECT_EQ(buffer_sizes(task, task.default_workload()),
            (std::vector<size_t>{3 * 2, 3 * 4, 4, 3 * 2, 3 * 4, 4}));
}

TEST(CaseTensors, InputsAreEncodedInTheirDtypesAndOutputsClearedToNaN) {
  task::Task task = mixed_task();
  SharedBuffers buffers(buffer_sizes(task, task.default_workload()));
  stage_case(buffers, task, mixed_case());
  EXPECT_EQ(half_word(buffers, 0, 0), 0x3FC0);  // bfloat16 1.5
  EXPECT_EQ(half_word(buffers, 0, 1), 0xC000);  // bfloat16 -2
  int32_t index = 0;
  std::memcpy(&index, buffers.data(1), 4);
  EXPECT_EQ(index, 3);
  EXPECT_EQ(*buffers.floats(2), 0.125f);
  for (size_t e = 0; e < 3; ++e) {
    EXPECT_TRUE(std::isnan(task::fp16_bits_to_float(half_word(buffers, 3, e))));
  }
  EXPECT_EQ(static_cast<const unsigned char*>(buffers.data(4))[0], 0xA5);
  EXPECT_TRUE(std::isnan(*buffers.floats(5)));
  EXPECT_FALSE(buffers.damaged_canary());
  EXPECT_EQ(changed_input(buffers, task, mixed_case()), std::nullopt);
}

TEST(CaseTensors, AChangedInputIsFoundByItsBytes) {
  task::Task task = mixed_task();
  SharedBuffers buffers(buffer_sizes(task, task.default_workload()));
  stage_case(buffers, task, mixed_case());
  static_cast<unsigned char*>(buffers.data(0))[4] ^= 1;  // the lowest bit of 0.25 in bfloat16
  EXPECT_EQ(changed_input(buffers, task, mixed_case()), 0u);
  stage_case(buffers, task, mixed_case());
  buffers.floats(2)[0] = 0.5f;
  EXPECT_EQ(changed_input(buffers, task, mixed_case()), 2u);
}

TEST(CaseTensors, OutputsAreDecodedFromTheirDtypesForTheChecker) {
  task::Task task = mixed_task();
  SharedBuffers buffers(buffer_sizes(task, task.default_workload()));
  stage_case(buffers, task, mixed_case());
  const float y[] = {1.0f, 2.0f, 65504.0f};
  task::encode_values(task::DType::kFloat16, y, 3, buffers.data(3));
  const float count[] = {7, -1, 2};
  task::encode_values(task::DType::kInt32, count, 3, buffers.data(4));
  *buffers.floats(5) = 6.5f;
  std::vector<std::vector<float>> storage;
  std::vector<const float*> outputs = decoded_outputs(buffers, task, storage);
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_EQ(std::vector<float>(outputs[0], outputs[0] + 3), (std::vector<float>{1, 2, 65504}));
  EXPECT_EQ(std::vector<float>(outputs[1], outputs[1] + 3), (std::vector<float>{7, -1, 2}));
  EXPECT_EQ(outputs[2], buffers.floats(5)) << "float32 is read where it is";

  // The checker sees the decoded values: y off by one element fails with y named.
  OutputCheck check = check_outputs(task, nullptr, outputs, {{1, 2, 3}, {7, -1, 2}, {6.5f}});
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.message.find("y"), std::string::npos) << check.message;
  EXPECT_TRUE(check_outputs(task, nullptr, outputs, {{1, 2, 65504}, {7, -1, 2}, {6.5f}}).ok);
}

TEST(CaseTensors, Float64IsRefusedByNameAndTheNarrowTypesAreNot) {
  EXPECT_NO_THROW(require_cuda_dtypes(mixed_task()));
  task::Task task = mixed_task();
  task.outputs[2].dtype = task::DType::kFloat64;
  try {
    require_cuda_dtypes(task);
    FAIL() << "a float64 tensor accepted";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("task mixed: tensor 'total' is float64; the cuda platform runs float32, "
                        "bfloat16, float16, float8_e4m3fn, int8 and int32 tensors"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace accelopt::platform::cuda
