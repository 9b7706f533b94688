#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace accelopt::task {

// Element types of tensors. Stored in databases and files by name, never by number.
enum class DType : uint8_t {
  kFloat32 = 1,
  kFloat16 = 2,
  kBFloat16 = 3,
  kInt8 = 4,
  kInt32 = 5,
  kFloat64 = 6,
};

std::optional<DType> parse_dtype(std::string_view name);  // "float32", "float16", "bfloat16", ...
std::string_view dtype_name(DType dtype);
size_t dtype_size(DType dtype);
// The C/C++ type a kernel sees: "float", "_Float16", "__bf16", "int8_t", "int32_t", "double".
std::string_view dtype_c_type(DType dtype);
// The .npy descriptor ("<f4", ...); bfloat16 has none in NumPy and is written as "<u2".
std::string_view dtype_numpy_descr(DType dtype);

}  // namespace accelopt::task
