#include "task/dtype.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

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
    {DType::kBFloat16, "bfloat16", 2, "accelopt::bf16", "<u2"},
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

template <typename Int>
Int saturated(double value) {
  if (std::isnan(value)) return 0;
  double rounded = std::round(value);
  if (rounded <= std::numeric_limits<Int>::min()) return std::numeric_limits<Int>::min();
  if (rounded >= std::numeric_limits<Int>::max()) return std::numeric_limits<Int>::max();
  return static_cast<Int>(rounded);
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
bool is_integer(DType dtype) {
  return dtype == DType::kInt8 || dtype == DType::kInt32;
}

uint16_t float_to_bf16_bits(float value) {
  auto bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  // Adding 0x7FFF plus the lowest kept bit rounds to nearest, ties to even; a carry into the
  // exponent is the right answer, up to infinity.
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

float bf16_bits_to_float(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t float_to_fp16_bits(float value) {
  auto bits = std::bit_cast<uint32_t>(value);
  auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) {  // NaN: keep the top of the payload, quiet
    return static_cast<uint16_t>(sign | 0x7E00u | ((magnitude >> 13) & 0x03FFu));
  }
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u;  // rounds past 65504: infinity
  if (magnitude < 0x38800000u) {
    // Below fp16's smallest normal (2^-14): a subnormal, a multiple of 2^-24. Adding 0.5 makes
    // the float's own rounding (to nearest even) do the work, then the low bits are the result.
    float scaled = std::bit_cast<float>(magnitude) + 0.5f;
    return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(scaled) - 0x3F000000u));
  }
  // A normal: rebias the exponent (127 → 15) and round the 13 dropped mantissa bits to even.
  uint32_t odd = (magnitude >> 13) & 1u;
  magnitude += 0xC8000FFFu + odd;  // (15 - 127) << 23, plus the rounding
  return static_cast<uint16_t>(sign | (magnitude >> 13));
}

float fp16_bits_to_float(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x03FFu;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {  // zero or subnormal: mantissa · 2^-24, exact in float
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

float round_to_dtype(DType dtype, double value) {
  switch (dtype) {
    case DType::kBFloat16:
      return bf16_bits_to_float(float_to_bf16_bits(static_cast<float>(value)));
    case DType::kFloat16:
      return fp16_bits_to_float(float_to_fp16_bits(static_cast<float>(value)));
    case DType::kInt8:
      return saturated<int8_t>(value);
    case DType::kInt32:
      return static_cast<float>(saturated<int32_t>(value));
    case DType::kFloat32:
    case DType::kFloat64:
      break;
  }
  return static_cast<float>(value);
}

void encode_values(DType dtype, const float* values, size_t count, void* into) {
  if (dtype == DType::kFloat32) {  // the common case, at memcpy's speed
    std::memcpy(into, values, count * sizeof(float));
    return;
  }
  auto* bytes = static_cast<unsigned char*>(into);
  size_t width = dtype_size(dtype);
  for (size_t i = 0; i < count; ++i) {
    unsigned char* at = bytes + i * width;
    switch (dtype) {
      case DType::kFloat32:
        std::memcpy(at, &values[i], 4);
        break;
      case DType::kFloat64: {
        double wide = values[i];
        std::memcpy(at, &wide, 8);
        break;
      }
      case DType::kBFloat16: {
        uint16_t bits = float_to_bf16_bits(values[i]);
        std::memcpy(at, &bits, 2);
        break;
      }
      case DType::kFloat16: {
        uint16_t bits = float_to_fp16_bits(values[i]);
        std::memcpy(at, &bits, 2);
        break;
      }
      case DType::kInt8: {
        int8_t narrow = saturated<int8_t>(values[i]);
        std::memcpy(at, &narrow, 1);
        break;
      }
      case DType::kInt32: {
        int32_t whole = saturated<int32_t>(values[i]);
        std::memcpy(at, &whole, 4);
        break;
      }
    }
  }
}

void decode_values(DType dtype, const void* from, size_t count, float* into) {
  if (dtype == DType::kFloat32) {
    std::memcpy(into, from, count * sizeof(float));
    return;
  }
  const auto* bytes = static_cast<const unsigned char*>(from);
  size_t width = dtype_size(dtype);
  for (size_t i = 0; i < count; ++i) {
    const unsigned char* at = bytes + i * width;
    switch (dtype) {
      case DType::kFloat32:
        std::memcpy(&into[i], at, 4);
        break;
      case DType::kFloat64: {
        double wide = 0;
        std::memcpy(&wide, at, 8);
        into[i] = static_cast<float>(wide);
        break;
      }
      case DType::kBFloat16:
      case DType::kFloat16: {
        uint16_t bits = 0;
        std::memcpy(&bits, at, 2);
        into[i] = dtype == DType::kBFloat16 ? bf16_bits_to_float(bits) : fp16_bits_to_float(bits);
        break;
      }
      case DType::kInt8: {
        int8_t narrow = 0;
        std::memcpy(&narrow, at, 1);
        into[i] = narrow;
        break;
      }
      case DType::kInt32: {
        int32_t whole = 0;
        std::memcpy(&whole, at, 4);
        into[i] = static_cast<float>(whole);
        break;
      }
    }
  }
}

std::vector<float> decode_values(DType dtype, const void* from, size_t bytes) {
  if (dtype == DType::kFloat32) {  // copied once, not zeroed first
    const auto* first = static_cast<const float*>(from);
    return std::vector<float>(first, first + bytes / sizeof(float));
  }
  std::vector<float> values(bytes / dtype_size(dtype));
  decode_values(dtype, from, values.size(), values.data());
  return values;
}

void clear_to_nan(DType dtype, void* into, size_t bytes) {
  if (is_integer(dtype)) {
    std::memset(into, 0xA5, bytes);
    return;
  }
  // One NaN in the dtype's bytes, then copied along the buffer in doubling steps (no float copy of
  // the buffer: on the CPU workloads one was a 59 MB allocation per reference case).
  size_t width = dtype_size(dtype);
  unsigned char nan[8] = {};
  float quiet_nan = std::numeric_limits<float>::quiet_NaN();
  encode_values(dtype, &quiet_nan, 1, nan);
  auto* target = static_cast<unsigned char*>(into);
  size_t size = bytes / width * width;
  if (size == 0) return;
  std::memcpy(target, nan, width);
  for (size_t done = width; done < size; done *= 2) {
    std::memcpy(target + done, target, std::min(done, size - done));
  }
}

std::optional<uint32_t> unwritten_marker(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return 0x7FE5A5A5u;  // a NaN whose payload no arithmetic on finite values makes
    case DType::kBFloat16:
      return 0x7FA5u;  // signalling: quiet bit 0x0040 clear
    case DType::kFloat16:
      return 0x7D25u;  // signalling: quiet bit 0x0200 clear
    case DType::kFloat64:
      return std::nullopt;
    case DType::kInt8:
    case DType::kInt32:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace accelopt::task
