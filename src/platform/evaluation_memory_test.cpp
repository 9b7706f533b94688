#include "platform/evaluation_memory.h"

#include <gtest/gtest.h>

namespace accelopt::platform {
namespace {

TEST(EvaluationMemory, CountsEachCasesInputsAtTheirWidthAndAPythonReferencesFloats) {
  task::Task task = task::parse_task_definition(R"json({
    "name": "t", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"w": {"dtype": "float8_e4m3fn", "shape": ["N"]},
               "x": {"dtype": "bfloat16", "shape": ["N"]}},
    "outputs": {"y": {"dtype": "float32", "shape": ["N"]}},
    "workloads": {"w": {"axes": {"N": 1000}}}, "roofline": {"bytes": "7*N"}})json",
                                                "/t", "t");
  const task::Workload& workload = task.default_workload();
  // 3000 bytes a case, for the 5 seeds and the kernel's buffers.
  EXPECT_EQ(evaluation_memory_bytes(task, workload), 6u * 3000);
  task.python_reference = true;  // and 2000 elements as float32
  EXPECT_EQ(evaluation_memory_bytes(task, workload), 6u * 3000 + 4 * 2000);
  // A constant input is held once for every case: w's 1000 bytes three times, not six.
  task.inputs[0].constant = true;
  EXPECT_EQ(evaluation_memory_bytes(task, workload), 6u * 2000 + 3 * 1000 + 4 * 2000);
}

TEST(EvaluationMemory, ReadsWhatTheMachineHasAvailable) {
  uint64_t available = available_memory_bytes();
  EXPECT_GT(available, uint64_t{1} << 20);
  EXPECT_LT(available, uint64_t{1} << 50);
}

}  // namespace
}  // namespace accelopt::platform
