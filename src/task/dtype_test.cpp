#include "task/dtype.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace accelopt::task {
namespace {

float bf16_round(float value) {
  return bf16_bits_to_float(float_to_bf16_bits(value));
}

TEST(DType, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3F80);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: the even one (1) wins; 1 + 3·2^-8 lies halfway
  // between 1 + 2^-7 (odd) and 1 + 2^-6 (even): up.
  EXPECT_EQ(bf16_round(1.0f + 0x1p-8f), 1.0f);
  EXPECT_EQ(bf16_round(1.0f + 3 * 0x1p-8f), 1.0f + 0x1p-6f);
  // Just past halfway rounds up, just below down.
  EXPECT_EQ(bf16_round(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);
  EXPECT_EQ(bf16_round(1.0f + 0x1p-8f - 0x1p-20f), 1.0f);
  EXPECT_EQ(bf16_round(-1.0f - 3 * 0x1p-8f), -1.0f - 0x1p-6f);
  EXPECT_EQ(float_to_bf16_bits(-0.0f), 0x8000);
}

TEST(DType, BFloat16KeepsNaNAndInfinityAndOverflowsToInfinity) {
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(float_to_bf16_bits(inf), 0x7F80);
  EXPECT_EQ(float_to_bf16_bits(-inf), 0xFF80);
  EXPECT_EQ(bf16_round(std::numeric_limits<float>::max()), inf);
  // A NaN whose payload lies only in the dropped bits must not become infinity.
  float low_payload = std::bit_cast<float>(0x7F800001u);
  ASSERT_TRUE(std::isnan(low_payload));
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(low_payload))));
  EXPECT_EQ(float_to_bf16_bits(low_payload) & 0x0040, 0x0040) << "made quiet";
  // Every bfloat16 value converts to a float and back to itself.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float value = bf16_bits_to_float(static_cast<uint16_t>(bits));
    if (std::isnan(value)) continue;
    ASSERT_EQ(float_to_bf16_bits(value), bits);
  }
}

TEST(DType, Float16AgreesWithTheCompilersConversion) {
  // GCC's _Float16 conversion (libgcc's soft-float, round to nearest even) is the oracle.
  std::mt19937 random(5);
  for (int i = 0; i < 2'000'000; ++i) {
    auto bits = static_cast<uint32_t>(random());
    if (i % 2) bits = (bits & 0x807FFFFFu) | ((103u + random() % 40u) << 23);  // near fp16's range
    float value = std::bit_cast<float>(bits);
    if (std::isnan(value)) continue;
    auto expected = std::bit_cast<uint16_t>(static_cast<_Float16>(value));
    ASSERT_EQ(float_to_fp16_bits(value), expected) << std::hexfloat << value;
  }
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    auto half = std::bit_cast<_Float16>(static_cast<uint16_t>(bits));
    float value = fp16_bits_to_float(static_cast<uint16_t>(bits));
    if (std::isnan(value)) {
      ASSERT_TRUE(std::isnan(static_cast<float>(half)));
      continue;
    }
    ASSERT_EQ(std::bit_cast<uint32_t>(value), std::bit_cast<uint32_t>(static_cast<float>(half)));
    ASSERT_EQ(float_to_fp16_bits(value), bits) << "round trip of " << bits;
  }
}

TEST(DType, Float16TiesSubnormalsAndLimits) {
  EXPECT_EQ(float_to_fp16_bits(1.0f + 0x1p-11f), 0x3C00);  // a tie: to 1, the even one
  EXPECT_EQ(float_to_fp16_bits(1.0f + 3 * 0x1p-11f), 0x3C02);
  EXPECT_EQ(float_to_fp16_bits(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_fp16_bits(65519.0f), 0x7BFF);
  EXPECT_EQ(float_to_fp16_bits(65520.0f), 0x7C00);  // the tie with 65536: infinity
  EXPECT_EQ(float_to_fp16_bits(0x1p-24f), 0x0001);  // the smallest subnormal
  EXPECT_EQ(float_to_fp16_bits(0x1p-25f), 0x0000);  // half of it: a tie, to zero (even)
  EXPECT_EQ(float_to_fp16_bits(0x1.8p-25f), 0x0001);
  EXPECT_EQ(float_to_fp16_bits(-std::numeric_limits<float>::infinity()), 0xFC00);
  uint16_t nan = float_to_fp16_bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(fp16_bits_to_float(nan)));
}

// Every float8_e4m3fn pattern's value from the format's definition (bias 7, 3 mantissa bits,
// subnormals at exponent 0, S.1111.111 the only NaN), independently of dtype.cpp's bit tricks.
double fp8_value(int bits) {
  int sign = bits & 0x80 ? -1 : 1, exponent = (bits >> 3) & 0xF, mantissa = bits & 7;
  if (exponent == 0xF && mantissa == 7) return std::nan("");
  if (exponent == 0) return sign * std::ldexp(mantissa, -9);
  return sign * std::ldexp(8 + mantissa, exponent - 10);
}

// The nearest finite float8 to `value` by search: ties to the even pattern, past 448 saturated.
uint8_t nearest_fp8(float value) {
  if (std::isnan(value)) return std::signbit(value) ? 0xFF : 0x7F;
  int best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (int bits = 0; bits < 256; ++bits) {
    double candidate = fp8_value(bits);
    if (std::isnan(candidate) || (candidate == 0 && std::signbit(candidate) != std::signbit(value)))
      continue;
    double distance = std::fabs(candidate - static_cast<double>(value));
    if (distance < best_distance || (distance == best_distance && (bits & 1) == 0)) {
      best = bits;
      best_distance = distance;
    }
  }
  return static_cast<uint8_t>(best);
}

TEST(DType, Float8DecodesEveryPatternAsTheFormatDefines) {
  for (int bits = 0; bits < 256; ++bits) {
    float decoded = fp8_e4m3_bits_to_float(static_cast<uint8_t>(bits));
    double expected = fp8_value(bits);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(decoded)) << bits;
      continue;
    }
    EXPECT_EQ(decoded, expected) << bits;
    EXPECT_EQ(std::signbit(decoded), (bits & 0x80) != 0) << bits;
    EXPECT_EQ(float_to_fp8_e4m3_bits(decoded), bits) << "round trip of " << bits;
  }
  EXPECT_EQ(fp8_e4m3_bits_to_float(0x7E), 448.0f);
  EXPECT_EQ(fp8_e4m3_bits_to_float(0x01), 0x1p-9f);
}

TEST(DType, Float8RoundsToNearestEvenAndSaturates) {
  // Midpoints between neighbours, and just either side of them, hit every tie rule.
  std::vector<float> values;
  for (int bits = 0; bits < 0x7E; ++bits) {
    double low = fp8_value(bits), high = fp8_value(bits + 1);
    auto middle = static_cast<float>((low + high) / 2);
    for (float value : {middle, std::nextafter(middle, 0.0f), std::nextafter(middle, 1e9f)}) {
      values.push_back(value);
      values.push_back(-value);
    }
  }
  std::mt19937 random(7);
  std::uniform_int_distribution<uint32_t> patterns;
  for (int i = 0; i < 200000; ++i) {
    float value = std::bit_cast<float>(patterns(random));
    if (std::fabs(value) < 1e4f || std::isnan(value)) values.push_back(value);
  }
  for (float value : values) {
    ASSERT_EQ(float_to_fp8_e4m3_bits(value), nearest_fp8(value)) << value;
  }
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(float_to_fp8_e4m3_bits(464.0f), 0x7E);  // past the largest: saturated, never NaN
  EXPECT_EQ(float_to_fp8_e4m3_bits(1e30f), 0x7E);
  EXPECT_EQ(float_to_fp8_e4m3_bits(-inf), 0xFE);
  EXPECT_EQ(float_to_fp8_e4m3_bits(std::numeric_limits<float>::quiet_NaN()), 0x7F);
  EXPECT_EQ(round_to_dtype(DType::kFloat8E4M3, 1000.0), 448.0f);
  EXPECT_EQ(round_to_dtype(DType::kFloat8E4M3, 0.3), 0.3125f);
  // A whole tensor rounds as each value does.
  std::vector<float> tensor(values.begin(), values.begin() + 5000);
  std::vector<float> each = tensor;
  for (float& value : each) value = round_to_dtype(DType::kFloat8E4M3, value);
  round_floats_to_dtype(DType::kFloat8E4M3, tensor.data(), tensor.size());
  for (size_t i = 0; i < tensor.size(); ++i) {
    if (std::isnan(each[i])) continue;
    ASSERT_EQ(tensor[i], each[i]) << i;
  }
}

TEST(DType, IntegersRoundHalvesAwayAndSaturate) {
  EXPECT_EQ(round_to_dtype(DType::kInt8, 2.5), 3);
  EXPECT_EQ(round_to_dtype(DType::kInt8, -2.5), -3);
  EXPECT_EQ(round_to_dtype(DType::kInt8, 1000), 127);
  EXPECT_EQ(round_to_dtype(DType::kInt8, -1000), -128);
  EXPECT_EQ(round_to_dtype(DType::kInt32, 1e12), 2147483647.0f);
  EXPECT_EQ(round_to_dtype(DType::kInt32, std::nan("")), 0);
  EXPECT_EQ(round_to_dtype(DType::kFloat32, 0.1), 0.1f);
}

TEST(DType, EncodeWritesEachTypesBytesAndDecodeReadsThem) {
  const float values[] = {1.5f, -2.0f, 100.25f};
  unsigned char bytes[12] = {};
  encode_values(DType::kBFloat16, values, 3, bytes);
  uint16_t first = 0;
  std::memcpy(&first, bytes, 2);
  EXPECT_EQ(first, 0x3FC0);  // 1.5
  std::vector<float> back = decode_values(DType::kBFloat16, bytes, 6);
  EXPECT_EQ(back, (std::vector<float>{1.5f, -2.0f, 100.0f}));  // 100.25 needs 9 bits
  encode_values(DType::kInt8, values, 3, bytes);
  EXPECT_EQ(static_cast<int8_t>(bytes[1]), -2);
  EXPECT_EQ(decode_values(DType::kInt8, bytes, 3), (std::vector<float>{2, -2, 100}));
  encode_values(DType::kInt32, values, 3, bytes);
  int32_t third = 0;
  std::memcpy(&third, bytes + 8, 4);
  EXPECT_EQ(third, 100);
  encode_values(DType::kFloat16, values, 3, bytes);
  EXPECT_EQ(decode_values(DType::kFloat16, bytes, 6), (std::vector<float>{1.5f, -2.0f, 100.25f}));
}

TEST(DType, ClearToNanFillsEveryElementOfTheBufferInItsWidth) {
  unsigned char bytes[14];
  std::memset(bytes, 0, sizeof bytes);
  clear_to_nan(DType::kBFloat16, bytes, 14);
  std::vector<float> values = decode_values(DType::kBFloat16, bytes, 14);
  ASSERT_EQ(values.size(), 7u);
  for (float value : values) EXPECT_TRUE(std::isnan(value));
  std::memset(bytes, 0, sizeof bytes);
  clear_to_nan(DType::kFloat32, bytes, 12);  // three floats, the last two bytes left alone
  for (float value : decode_values(DType::kFloat32, bytes, 12)) EXPECT_TRUE(std::isnan(value));
  EXPECT_EQ(bytes[12], 0);
  clear_to_nan(DType::kInt32, bytes, 8);  // integers have no NaN: 0xA5 bytes
  EXPECT_EQ(bytes[0], 0xA5);
  EXPECT_EQ(bytes[7], 0xA5);
}

TEST(DType, Float16TensorsConvertAsEachValueDoes) {
  // encode_values and decode_values convert float16 tensors 8 values at a time where the CPU has
  // F16C: the bits must be the scalar functions' (NaNs, subnormals, overflow, the tail past the
  // last 8, an odd address).
  std::mt19937 random(7);
  std::vector<float> values;
  for (int i = 0; i < 1'000'003; ++i) {
    auto bits = static_cast<uint32_t>(random());
    if (i % 2) bits = (bits & 0x807FFFFFu) | ((100u + random() % 50u) << 23);
    values.push_back(std::bit_cast<float>(bits));
  }
  for (float special :
       {0.0f, -0.0f, 65504.0f, 65520.0f, 0x1p-25f, 0x1p-24f, 0x1.8p-25f,
        std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
        std::bit_cast<float>(0x7F800001u), std::bit_cast<float>(0xFFC12345u)}) {
    values.push_back(special);
  }
  std::vector<unsigned char> encoded(2 * values.size() + 1);
  encode_values(DType::kFloat16, values.data(), values.size(), encoded.data() + 1);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t bits;
    std::memcpy(&bits, encoded.data() + 1 + 2 * i, 2);
    ASSERT_EQ(bits, float_to_fp16_bits(values[i])) << std::hexfloat << values[i];
  }

  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    std::vector<float> rounded = values;
    round_floats_to_dtype(dtype, rounded.data(), rounded.size());
    for (size_t i = 0; i < values.size(); ++i) {
      float expected = round_to_dtype(dtype, values[i]);
      ASSERT_EQ(std::bit_cast<uint32_t>(rounded[i]), std::bit_cast<uint32_t>(expected))
          << dtype_name(dtype) << " " << std::hexfloat << values[i];
    }
  }

  std::vector<unsigned char> every_half(2 * 0x10000 + 1);
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    auto half = static_cast<uint16_t>(bits);
    std::memcpy(every_half.data() + 1 + 2 * bits, &half, 2);
  }
  std::vector<float> decoded(0x10000);
  decode_values(DType::kFloat16, every_half.data() + 1, decoded.size(), decoded.data());
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    ASSERT_EQ(std::bit_cast<uint32_t>(decoded[bits]),
              std::bit_cast<uint32_t>(fp16_bits_to_float(static_cast<uint16_t>(bits))))
        << "half bits " << bits;
  }
}

TEST(DType, UnwrittenMarkersAreSignallingNaNsNoConversionMakes) {
  auto bf16 = static_cast<uint16_t>(*unwritten_marker(DType::kBFloat16));
  auto fp16 = static_cast<uint16_t>(*unwritten_marker(DType::kFloat16));
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(bf16)));
  EXPECT_TRUE(std::isnan(fp16_bits_to_float(fp16)));
  EXPECT_EQ(bf16 & 0x0040, 0) << "quiet bit clear";
  EXPECT_EQ(fp16 & 0x0200, 0) << "quiet bit clear";
  // Converting any NaN gives a quiet one, never the marker.
  EXPECT_NE(float_to_bf16_bits(bf16_bits_to_float(bf16)), bf16);
  EXPECT_NE(float_to_fp16_bits(fp16_bits_to_float(fp16)), fp16);
  EXPECT_FALSE(unwritten_marker(DType::kInt32).has_value());
}

}  // namespace
}  // namespace accelopt::task
