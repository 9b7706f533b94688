#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace accelopt::task {

// Element types of tensors. Stored in databases and files by name, never by number.
enum class DType : uint8_t {
  kFloat32 = 1,
  kFloat16 = 2,
  kBFloat16 = 3,
  kInt8 = 4,
  kInt32 = 5,
  kFloat64 = 6,
  kFloat8E4M3 = 7,  // "float8_e4m3fn": OCP E4M3FN, no infinity, largest finite 448
};

std::optional<DType> parse_dtype(std::string_view name);  // "float32", "float16", "bfloat16", ...
std::string_view dtype_name(DType dtype);
size_t dtype_size(DType dtype);
// The C/C++ type a kernel sees: "float", "_Float16", "accelopt::bf16" (abi.h defines it: GCC 12
// has no arithmetic __bf16), "accelopt::fp8_e4m3", "int8_t", "int32_t", "double".
std::string_view dtype_c_type(DType dtype);
// The .npy descriptor ("<f4", ...); bfloat16 and float8_e4m3fn have none in NumPy and are written
// as their bits, "<u2" and "|u1".
std::string_view dtype_numpy_descr(DType dtype);
bool is_integer(DType dtype);

// IEEE conversions between float and the 16-bit formats' bit patterns, rounding to nearest even.
// A NaN stays a NaN (made quiet), an infinity stays one, and a finite value past the format's
// largest rounds to infinity, as a hardware conversion does.
uint16_t float_to_bf16_bits(float value);
float bf16_bits_to_float(uint16_t bits);
uint16_t float_to_fp16_bits(float value);
float fp16_bits_to_float(uint16_t bits);
// float8_e4m3fn has no infinity: a NaN stays a NaN (0x7F with the sign), and every other value past
// the largest finite, ±448, infinity included, saturates to it (as CUDA's __NV_SATFINITE
// conversion and the quantizers that make such tensors do); the rest rounds to nearest even.
uint8_t float_to_fp8_e4m3_bits(float value);
float fp8_e4m3_bits_to_float(uint8_t bits);

// The value of `dtype` nearest `value`, as a float: the narrow float formats round to nearest
// even (float8_e4m3fn saturating); the
// integer types round to the nearest integer (halves away from zero) and saturate at their range,
// NaN giving 0. float32 and float64 return `value` as a float.
float round_to_dtype(DType dtype, double value);

// bfloat16, float16 and float8_e4m3fn: the types round_to_dtype rounds from float (a double is
// made a float first), so a tensor of floats can be rounded in place, many values at a time.
bool is_narrow_float(DType dtype);
// Each of `count` floats as round_to_dtype(dtype, value) makes it, for a narrow float type.
void round_floats_to_dtype(DType dtype, float* values, size_t count);

// Conversions between float values (exact for bfloat16, float16, float8_e4m3fn, int8, and int32
// within ±2^24) and a tensor's bytes: `encode_values` writes `count` elements of `dtype` (each
// value rounded as round_to_dtype), `decode_values` reads them back.
void encode_values(DType dtype, const float* values, size_t count, void* into);
void decode_values(DType dtype, const void* from, size_t count, float* into);
std::vector<float> decode_values(DType dtype, const void* from, size_t bytes);

// Fills `bytes` of an output buffer of `dtype` as the harness clears it before a checked call: a
// quiet NaN in every element of a float type (a kernel that skips one fails the check), 0xA5 bytes
// for an integer type, which has no invalid value.
void clear_to_nan(DType dtype, void* into, size_t bytes);

// The bit pattern, dtype_size(dtype) bytes, that marks an output element not yet written: a
// signalling NaN for the float types (no arithmetic on finite values and no rounding makes one).
// Integer types have none: every pattern is a value a kernel may write (std::nullopt).
std::optional<uint32_t> unwritten_marker(DType dtype);

}  // namespace accelopt::task
