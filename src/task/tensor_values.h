// A tensor's elements as a kernel's memory holds them: dtype_size(dtype) bytes each. The harness
// keeps inputs this way, so a tensor of 1.4 G float8 weights is 1.4 GB, not 5.6 GB of floats, and
// loading a case into a kernel's buffers is a copy.
//
// The bytes never change once made, and copies share them: a case copied for a check, and every
// case of an evaluation that holds a constant input (task.h, TensorSpec::constant), hold one array.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "task/dtype.h"

namespace accelopt::task {

class TensorValues {
 public:
  TensorValues() = default;
  TensorValues(DType dtype, std::vector<unsigned char> bytes);

  DType dtype() const { return dtype_; }
  const std::vector<unsigned char>& bytes() const;
  size_t count() const { return bytes().size() / dtype_size(dtype_); }
  // Every element as a float (exact for the dtypes the harness runs: dtype.h).
  std::vector<float> floats() const;
  float at(size_t index) const;
  // Whether both hold the very same array (not only equal bytes): a copy of the other, or the same
  // constant input.
  bool shares_bytes_with(const TensorValues& other) const {
    return bytes_ != nullptr && bytes_ == other.bytes_;
  }

  // `values` rounded to `dtype` as encode_values rounds them.
  static TensorValues encode(DType dtype, const std::vector<float>& values);

  bool operator==(const TensorValues& other) const {
    return dtype_ == other.dtype_ && bytes() == other.bytes();
  }

 private:
  DType dtype_ = DType::kFloat32;
  std::shared_ptr<const std::vector<unsigned char>> bytes_;
};

}  // namespace accelopt::task
