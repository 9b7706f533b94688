// A tensor's elements as a kernel's memory holds them: dtype_size(dtype) bytes each. The harness
// keeps inputs this way, so a tensor of 1.4 G float8 weights is 1.4 GB, not 5.6 GB of floats, and
// loading a case into a kernel's buffers is a copy.
#pragma once

#include <cstddef>
#include <vector>

#include "task/dtype.h"

namespace accelopt::task {

struct TensorValues {
  DType dtype = DType::kFloat32;
  std::vector<unsigned char> bytes;

  size_t count() const { return bytes.size() / dtype_size(dtype); }
  // Every element as a float (exact for the dtypes the harness runs: dtype.h).
  std::vector<float> floats() const;
  float at(size_t index) const;

  // `values` rounded to `dtype` as encode_values rounds them.
  static TensorValues encode(DType dtype, const std::vector<float>& values);

  bool operator==(const TensorValues&) const = default;
};

}  // namespace accelopt::task
