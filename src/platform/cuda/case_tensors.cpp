#include "platform/cuda/case_tensors.h"

#include <fmt/format.h>

#include <cstring>

#include "common/error.h"

namespace accelopt::platform::cuda {

void require_cuda_dtypes(const task::Task& task) {
  for (const auto* list : {&task.inputs, &task.outputs}) {
    for (const task::TensorSpec& tensor : *list) {
      if (tensor.dtype != task::DType::kFloat64) continue;
      throw UserError(fmt::format(
          "task {}: tensor '{}' is float64; the cuda platform runs float32, bfloat16, float16, "
          "float8_e4m3fn, int8 and int32 tensors",
          task.name, tensor.name));
    }
  }
}

void stage_case(SharedBuffers& buffers, const task::Task& task,
                const ReferenceCase& reference_case) {
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    const task::TensorValues& values = reference_case.inputs[i];
    if (values.bytes().size() != buffers.size(i)) {
      throw InternalError("stage_case: input " + task.inputs[i].name + " has the wrong size");
    }
    std::memcpy(buffers.data(i), values.bytes().data(), values.bytes().size());
  }
  for (size_t o = 0; o < task.outputs.size(); ++o) {
    size_t index = task.inputs.size() + o;
    task::clear_to_nan(task.outputs[o].dtype, buffers.data(index), buffers.size(index));
  }
  buffers.fill_canaries();
}

std::optional<size_t> changed_input(const SharedBuffers& buffers, const task::Task& task,
                                    const ReferenceCase& reference_case) {
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    const task::TensorValues& values = reference_case.inputs[i];
    if (std::memcmp(buffers.data(i), values.bytes().data(), buffers.size(i)) != 0) return i;
  }
  return std::nullopt;
}

std::vector<const float*> decoded_outputs(const SharedBuffers& buffers, const task::Task& task,
                                          std::vector<std::vector<float>>& storage) {
  storage.clear();
  storage.reserve(task.outputs.size());  // no reallocation: the pointers below stay valid
  std::vector<const float*> outputs;
  for (size_t o = 0; o < task.outputs.size(); ++o) {
    size_t index = task.inputs.size() + o;
    if (task.outputs[o].dtype == task::DType::kFloat32) {
      outputs.push_back(buffers.floats(index));
      continue;
    }
    storage.push_back(
        task::decode_values(task.outputs[o].dtype, buffers.data(index), buffers.size(index)));
    outputs.push_back(storage.back().data());
  }
  return outputs;
}

}  // namespace accelopt::platform::cuda
