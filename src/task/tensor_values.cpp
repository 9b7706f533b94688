#include "task/tensor_values.h"

namespace accelopt::task {

std::vector<float> TensorValues::floats() const {
  return decode_values(dtype, bytes.data(), bytes.size());
}

float TensorValues::at(size_t index) const {
  float value = 0;
  decode_values(dtype, bytes.data() + index * dtype_size(dtype), 1, &value);
  return value;
}

TensorValues TensorValues::encode(DType dtype, const std::vector<float>& values) {
  TensorValues tensor{dtype, std::vector<unsigned char>(values.size() * dtype_size(dtype))};
  encode_values(dtype, values.data(), values.size(), tensor.bytes.data());
  return tensor;
}

}  // namespace accelopt::task
