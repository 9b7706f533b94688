#include "task/abi.h"

#include <fmt/format.h>

namespace accelopt::task {
namespace {

// What a kernel of a bfloat16 task sees: the 16 bits, with conversions to and from float that
// round to nearest even as the harness does (task/dtype.h). GCC 12 has no arithmetic __bf16, so
// the kernel computes in float: `float x = in[i];` and `out[i] = y;` convert implicitly.
constexpr const char* kBFloat16Helpers = R"(namespace accelopt {
struct bf16 {
  std::uint16_t bits;
  bf16() = default;
  bf16(float value) : bits(from_float(value)) {}
  operator float() const { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }
  static std::uint16_t from_float(float value) {
    std::uint32_t u = std::bit_cast<std::uint32_t>(value);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return static_cast<std::uint16_t>(u >> 16);
  }
};
static_assert(sizeof(bf16) == 2);
inline float to_float(bf16 value) { return value; }
inline bf16 to_bf16(float value) { return bf16(value); }
}  // namespace accelopt
)";

// float16 is GCC's _Float16: stored as IEEE binary16, computed through float where the CPU has no
// fp16 arithmetic; conversions round to nearest even.
constexpr const char* kFloat16Helpers = R"(namespace accelopt {
using fp16 = _Float16;
inline float to_float(_Float16 value) { return static_cast<float>(value); }
inline _Float16 to_fp16(float value) { return static_cast<_Float16>(value); }
}  // namespace accelopt
)";

// float8_e4m3fn (OCP E4M3FN): the byte, with conversions that match the harness's (task/dtype.h):
// round to nearest even, NaN kept, everything else past ±448 saturated (the format has no
// infinity). Kernels dequantize such tensors (times a scale) and rarely write them.
constexpr const char* kFloat8Helpers = R"(namespace accelopt {
struct fp8_e4m3 {
  std::uint8_t bits;
};
static_assert(sizeof(fp8_e4m3) == 1);
inline float to_float(fp8_e4m3 value) {
  std::uint32_t sign = static_cast<std::uint32_t>(value.bits & 0x80u) << 24;
  std::uint32_t rest = value.bits & 0x7Fu;
  if (rest == 0x7Fu) return std::bit_cast<float>(sign | 0x7FC00000u);
  if (rest < 0x08u) {
    float subnormal = static_cast<float>(rest) * 0x1p-9f;
    return std::bit_cast<float>(sign | std::bit_cast<std::uint32_t>(subnormal));
  }
  return std::bit_cast<float>(sign | ((rest + (120u << 3)) << 20));
}
inline fp8_e4m3 to_fp8_e4m3(float value) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(value);
  auto sign = static_cast<std::uint8_t>((u >> 24) & 0x80u);
  std::uint32_t magnitude = u & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return {static_cast<std::uint8_t>(sign | 0x7Fu)};
  if (magnitude >= 0x43E00000u) return {static_cast<std::uint8_t>(sign | 0x7Eu)};  // 448
  if (magnitude < 0x3C800000u) {  // below 2^-6: units of 2^-9, rounded by the float add
    float scaled = std::bit_cast<float>(magnitude) * 0x1p9f + 0x1p23f;
    return {static_cast<std::uint8_t>(sign | (std::bit_cast<std::uint32_t>(scaled) - 0x4B000000u))};
  }
  magnitude += 0x7FFFFu + ((magnitude >> 20) & 1u);
  return {static_cast<std::uint8_t>(sign | ((magnitude >> 20) - (120u << 3)))};
}
}  // namespace accelopt
)";

// What a CUDA kernel of a bfloat16 or float16 task sees: CUDA's own __nv_bfloat16 and __half, not
// a struct of our own like the CPU's bf16. They hold the same IEEE bits the harness encodes
// (task/dtype.h), convert implicitly to and from float (round to nearest even) in host and device
// code, and they are what cuda_bf16.h's intrinsics, the packed __nv_bfloat162 arithmetic, WMMA and
// the mma instructions take, so a kernel reaches the tensor cores without casting our type to
// theirs. The accelopt:: names are the CPU ABI's, so a CPU baseline's loops read the same.
constexpr const char* kCudaBFloat16Helpers = R"(namespace accelopt {
using bf16 = __nv_bfloat16;
__host__ __device__ inline float to_float(__nv_bfloat16 value) { return __bfloat162float(value); }
__host__ __device__ inline __nv_bfloat16 to_bf16(float value) { return __float2bfloat16_rn(value); }
}  // namespace accelopt
)";

constexpr const char* kCudaFloat16Helpers = R"(namespace accelopt {
using fp16 = __half;
__host__ __device__ inline float to_float(__half value) { return __half2float(value); }
__host__ __device__ inline __half to_fp16(float value) { return __float2half_rn(value); }
}  // namespace accelopt
)";

// CUDA's own float8 type: its float constructor saturates (__NV_SATFINITE), as the harness does.
constexpr const char* kCudaFloat8Helpers = R"(namespace accelopt {
using fp8_e4m3 = __nv_fp8_e4m3;
__host__ __device__ inline float to_float(__nv_fp8_e4m3 value) { return static_cast<float>(value); }
__host__ __device__ inline __nv_fp8_e4m3 to_fp8_e4m3(float value) { return __nv_fp8_e4m3(value); }
}  // namespace accelopt
)";

// The type a kernel's prototype names for `dtype`, in CUDA or in C++.
std::string_view prototype_type(DType dtype, bool cuda) {
  if (cuda && dtype == DType::kBFloat16) return "__nv_bfloat16";
  if (cuda && dtype == DType::kFloat16) return "__half";
  if (cuda && dtype == DType::kFloat8E4M3) return "__nv_fp8_e4m3";
  return dtype_c_type(dtype);
}

bool uses(const Task& task, DType dtype) {
  for (const auto* list : {&task.inputs, &task.outputs}) {
    for (const TensorSpec& tensor : *list) {
      if (tensor.dtype == dtype) return true;
    }
  }
  return false;
}

}  // namespace

bool is_cuda_task(const Task& task) {
  return task.kernel_extension == ".cu";
}

std::string generate_kernel_header(const Task& task, const Workload& workload) {
  std::string header = fmt::format(
      "// Generated by accelopt for task '{}', workload '{}'. Do not edit.\n"
      "#pragma once\n#include <cstddef>\n#include <cstdint>\n",
      task.name, workload.name);
  // Only tasks with narrow tensors get the helpers, so float32 tasks compile as they always did.
  bool cuda = is_cuda_task(task);
  if (uses(task, DType::kBFloat16)) {
    header += cuda ? "#include <cuda_bf16.h>\n\n" + std::string(kCudaBFloat16Helpers)
                   : "#include <bit>\n\n" + std::string(kBFloat16Helpers);
  }
  if (uses(task, DType::kFloat16)) {
    header += cuda ? "#include <cuda_fp16.h>\n\n" + std::string(kCudaFloat16Helpers)
                   : "\n" + std::string(kFloat16Helpers);
  }
  if (uses(task, DType::kFloat8E4M3)) {
    bool has_bit = uses(task, DType::kBFloat16);
    header += cuda ? "#include <cuda_fp8.h>\n\n" + std::string(kCudaFloat8Helpers)
                   : (has_bit ? "\n" : "#include <bit>\n\n") + std::string(kFloat8Helpers);
  }
  header += "\n";
  for (const Axis& axis : task.axes) {
    header +=
        fmt::format("constexpr std::int64_t {} = {};\n", axis.name, workload.axes.at(axis.name));
  }
  header += fmt::format("constexpr int ACCELOPT_THREADS = {};\n\n", task.threads);
  std::string parameters;
  for (const TensorSpec& tensor : task.inputs) {
    parameters += fmt::format("{}const {}* __restrict {}", parameters.empty() ? "" : ", ",
                              prototype_type(tensor.dtype, cuda), tensor.name);
  }
  for (const TensorSpec& tensor : task.outputs) {
    parameters += fmt::format("{}{}* __restrict {}", parameters.empty() ? "" : ", ",
                              prototype_type(tensor.dtype, cuda), tensor.name);
  }
  header += fmt::format("extern \"C\" void {}({});\n", task.entry_point, parameters);
  return header;
}

}  // namespace accelopt::task
