#include "task/tensor_values.h"

namespace accelopt::task {

TensorValues::TensorValues(DType dtype, std::vector<unsigned char> bytes)
    : dtype_(dtype), bytes_(std::make_shared<const std::vector<unsigned char>>(std::move(bytes))) {}

const std::vector<unsigned char>& TensorValues::bytes() const {
  static const std::vector<unsigned char> kNone;
  return bytes_ ? *bytes_ : kNone;
}

std::vector<float> TensorValues::floats() const {
  return decode_values(dtype_, bytes().data(), bytes().size());
}

float TensorValues::at(size_t index) const {
  float value = 0;
  decode_values(dtype_, bytes().data() + index * dtype_size(dtype_), 1, &value);
  return value;
}

TensorValues TensorValues::encode(DType dtype, const std::vector<float>& values) {
  std::vector<unsigned char> bytes(values.size() * dtype_size(dtype));
  encode_values(dtype, values.data(), values.size(), bytes.data());
  return {dtype, std::move(bytes)};
}

}  // namespace accelopt::task
