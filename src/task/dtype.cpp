#include "task/dtype.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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
    {DType::kFloat8E4M3, "float8_e4m3fn", 1, "accelopt::fp8_e4m3", "|u1"},
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
  if (exponent == 0x1F) {  // infinity, or a NaN made quiet as F16C's conversion does
    uint32_t quiet = mantissa != 0 ? 0x00400000u : 0;
    return std::bit_cast<float>(sign | 0x7F800000u | quiet | (mantissa << 13));
  }
  if (exponent == 0) {  // zero or subnormal: mantissa · 2^-24, exact in float
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint8_t float_to_fp8_e4m3_bits(float value) {
  auto bits = std::bit_cast<uint32_t>(value);
  auto sign = static_cast<uint8_t>((bits >> 24) & 0x80u);
  if (std::isnan(value)) return sign | 0x7Fu;
  float magnitude = std::fabs(value);
  if (magnitude >= 448.0f) return sign | 0x7Eu;  // saturates: the format has no infinity
  if (magnitude < 0x1p-6f) {
    // Below the smallest normal: a multiple of 2^-9. Counted in units of 2^-9 and added to 2^23,
    // whose float ulp is 1, the float's own rounding (to nearest even) leaves the nearest count
    // in the low bits; 8 of them is the smallest normal's pattern.
    float scaled = magnitude * 0x1p9f + 0x1p23f;
    return static_cast<uint8_t>(sign | (std::bit_cast<uint32_t>(scaled) - 0x4B000000u));
  }
  // A normal: rebias the exponent (127 → 7) and round the 20 dropped mantissa bits to even. A
  // carry into the exponent is the right answer; below 448 it never reaches the NaN pattern.
  uint32_t kept = bits & 0x7FFFFFFFu;
  kept += 0x7FFFFu + ((kept >> 20) & 1u);
  return static_cast<uint8_t>(sign | ((kept >> 20) - (120u << 3)));
}

float fp8_e4m3_bits_to_float(uint8_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x80u) << 24;
  uint32_t exponent = (bits >> 3) & 0xFu;
  uint32_t mantissa = bits & 0x7u;
  if (exponent == 0xF && mantissa == 0x7) return std::bit_cast<float>(sign | 0x7FC00000u);
  if (exponent == 0) {  // zero or subnormal: mantissa · 2^-9
    float magnitude = static_cast<float>(mantissa) * 0x1p-9f;
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 120) << 23) | (mantissa << 20));
}

float round_to_dtype(DType dtype, double value) {
  switch (dtype) {
    case DType::kFloat8E4M3:
      return fp8_e4m3_bits_to_float(float_to_fp8_e4m3_bits(static_cast<float>(value)));
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

namespace {

// Writes or reads `count` elements of one storage type through `convert`, one loop per dtype (a
// switch per element kept the compiler from vectorizing any of them).
template <typename Stored, typename Convert>
void encode_each(const float* values, size_t count, unsigned char* into, Convert convert) {
  for (size_t i = 0; i < count; ++i) {
    Stored stored = convert(values[i]);
    std::memcpy(into + i * sizeof(Stored), &stored, sizeof(Stored));
  }
}

template <typename Stored, typename Convert>
void decode_each(const unsigned char* from, size_t count, float* into, Convert convert) {
  for (size_t i = 0; i < count; ++i) {
    Stored stored;
    std::memcpy(&stored, from + i * sizeof(Stored), sizeof(Stored));
    into[i] = convert(stored);
  }
}

// float16 tensors of hundreds of megabytes (a GEMM's weights) spent most of an evaluation in the
// scalar conversions; F16C converts 8 values an instruction, rounding to nearest even and quieting
// NaNs as the scalar functions do, so the bits are the same on every machine (dtype_test).
#if defined(__x86_64__)
bool has_f16c() {
  static const bool supported = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return supported;
}

__attribute__((target("avx,f16c"))) void encode_fp16_f16c(const float* values, size_t count,
                                                          unsigned char* into) {
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i halves = _mm256_cvtps_ph(_mm256_loadu_ps(values + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(into + 2 * i), halves);
  }
  encode_each<uint16_t>(values + i, count - i, into + 2 * i, float_to_fp16_bits);
}

__attribute__((target("avx,f16c"))) void decode_fp16_f16c(const unsigned char* from, size_t count,
                                                          float* into) {
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i halves = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 2 * i));
    _mm256_storeu_ps(into + i, _mm256_cvtph_ps(halves));
  }
  decode_each<uint16_t>(from + 2 * i, count - i, into + i, fp16_bits_to_float);
}
#endif

void encode_fp16(const float* values, size_t count, unsigned char* into) {
#if defined(__x86_64__)
  if (has_f16c()) return encode_fp16_f16c(values, count, into);
#endif
  encode_each<uint16_t>(values, count, into, float_to_fp16_bits);
}

void decode_fp16(const unsigned char* from, size_t count, float* into) {
#if defined(__x86_64__)
  if (has_f16c()) return decode_fp16_f16c(from, count, into);
#endif
  decode_each<uint16_t>(from, count, into, fp16_bits_to_float);
}

}  // namespace

void encode_values(DType dtype, const float* values, size_t count, void* into) {
  auto* bytes = static_cast<unsigned char*>(into);
  switch (dtype) {
    case DType::kFloat32:  // the common case, at memcpy's speed
      std::memcpy(into, values, count * sizeof(float));
      return;
    case DType::kFloat64:
      return encode_each<double>(values, count, bytes, [](float value) { return double{value}; });
    case DType::kBFloat16:
      return encode_each<uint16_t>(values, count, bytes, float_to_bf16_bits);
    case DType::kFloat16:
      return encode_fp16(values, count, bytes);
    case DType::kInt8:
      return encode_each<int8_t>(values, count, bytes, saturated<int8_t>);
    case DType::kInt32:
      return encode_each<int32_t>(values, count, bytes, saturated<int32_t>);
    case DType::kFloat8E4M3:
      return encode_each<uint8_t>(values, count, bytes, float_to_fp8_e4m3_bits);
  }
}

void decode_values(DType dtype, const void* from, size_t count, float* into) {
  const auto* bytes = static_cast<const unsigned char*>(from);
  switch (dtype) {
    case DType::kFloat32:
      std::memcpy(into, from, count * sizeof(float));
      return;
    case DType::kFloat64:
      return decode_each<double>(bytes, count, into,
                                 [](double value) { return static_cast<float>(value); });
    case DType::kBFloat16:
      return decode_each<uint16_t>(bytes, count, into, bf16_bits_to_float);
    case DType::kFloat16:
      return decode_fp16(bytes, count, into);
    case DType::kInt8:
      return decode_each<int8_t>(bytes, count, into,
                                 [](int8_t value) { return static_cast<float>(value); });
    case DType::kInt32:
      return decode_each<int32_t>(bytes, count, into,
                                  [](int32_t value) { return static_cast<float>(value); });
    case DType::kFloat8E4M3: {
      // 256 values: a table lookup each (a MoE's 1.4 G weights are decoded for its reference).
      static const std::array<float, 256> kValues = [] {
        std::array<float, 256> values{};
        for (size_t bits = 0; bits < values.size(); ++bits) {
          values[bits] = fp8_e4m3_bits_to_float(static_cast<uint8_t>(bits));
        }
        return values;
      }();
      for (size_t i = 0; i < count; ++i) into[i] = kValues[bytes[i]];
      return;
    }
  }
}

bool is_narrow_float(DType dtype) {
  return dtype == DType::kBFloat16 || dtype == DType::kFloat16 || dtype == DType::kFloat8E4M3;
}

void round_floats_to_dtype(DType dtype, float* values, size_t count) {
  if (dtype == DType::kBFloat16) {
    for (size_t i = 0; i < count; ++i) {
      values[i] = bf16_bits_to_float(float_to_bf16_bits(values[i]));
    }
    return;
  }
  // Through the converting loops, a block at a time, so that float16 rounds 8 values at once.
  constexpr size_t kBlock = 4096;
  unsigned char narrow[2 * kBlock];
  for (size_t start = 0; start < count; start += kBlock) {
    size_t block = std::min(kBlock, count - start);
    encode_values(dtype, values + start, block, narrow);
    decode_values(dtype, narrow, block, values + start);
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
    case DType::kFloat8E4M3:  // one NaN pattern a sign, which a conversion of any NaN makes
      return std::nullopt;
    case DType::kInt8:
    case DType::kInt32:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace accelopt::task
