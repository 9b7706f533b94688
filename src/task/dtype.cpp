#include "task/dtype.h"

namespace accelopt::task {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  size_t size;
  std::string_view c_type;
  std::string_view numpy;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::kFloat32, "float32", 4, "float", "<f4"},
    {DType::kFloat16, "float16", 2, "_Float16", "<f2"},
    {DType::kBFloat16, "bfloat16", 2, "__bf16", "<u2"},
    {DType::kInt8, "int8", 1, "int8_t", "|i1"},
    {DType::kInt32, "int32", 4, "int32_t", "<i4"},
    {DType::kFloat64, "float64", 8, "double", "<f8"},
};

const DTypeInfo& info(DType dtype) {
  for (const DTypeInfo& entry : kDTypes) {
    if (entry.dtype == dtype) return entry;
  }
  return kDTypes[0];
}

}  // namespace

std::optional<DType> parse_dtype(std::string_view name) {
  for (const DTypeInfo& entry : kDTypes) {
    if (entry.name == name) return entry.dtype;
  }
  return std::nullopt;
}

std::string_view dtype_name(DType dtype) {
  return info(dtype).name;
}
size_t dtype_size(DType dtype) {
  return info(dtype).size;
}
std::string_view dtype_c_type(DType dtype) {
  return info(dtype).c_type;
}
std::string_view dtype_numpy_descr(DType dtype) {
  return info(dtype).numpy;
}

}  // namespace accelopt::task
