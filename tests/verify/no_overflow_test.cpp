// SPDX-License-Identifier: BSL-1.0
// verify::no_overflow on quantized_multi_head_attention: true for a quantized model (inside
// static_assert too), false for planted overflows; and for a 2-input linear, the same answer as
// an exhaustive int64 search over all 65,536 int8 inputs, at biases around the boundary.
#include <cstddef>
#include <cstdint>

#include <doctest/doctest.h>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/torch_init.hpp>
#include <static_attention/quant.hpp>
#include <static_attention/verify.hpp>

namespace sa = static_attention;
namespace verify = sa::verify;

namespace {
constexpr auto quantized_model() {
  sa::multi_head_attention<float, 4, 4, 2, 8> m;
  sa::torch_generator gen{11};
  sa::init_like_torch(m, gen);
  sa::tensor<float, 1, 8, 4> calibration;
  float v = -1.0f;
  for (auto& e : calibration.elems) e = (v += 0.06f);
  return sa::quantize(m, calibration);
}

// The largest |bias + w . x| over every int8 x, by exhaustion (the test's own reference).
bool fits_exhaustively(std::int32_t bias, std::int8_t w0, std::int8_t w1) {
  for (int a = -128; a < 128; ++a)
    for (int b = -128; b < 128; ++b) {
      const std::int64_t acc = std::int64_t{bias} + std::int64_t{w0} * a + std::int64_t{w1} * b;
      if (acc > INT32_MAX || acc < INT32_MIN) return false;
    }
  return true;
}
}  // namespace

TEST_CASE("no_overflow: a quantized attention, and planted overflows") {
  static constexpr auto q = quantized_model();
  static_assert(verify::no_overflow(q));
  CHECK(verify::no_overflow(q));
  CHECK(verify::no_overflow<128>(q));
  CHECK(!verify::no_overflow<129>(q));  // 129 probabilities of 65535 times 255 exceed int32
  auto bad = q;
  bad.W_value.bias.elems[1] = INT32_MAX - 10;
  CHECK(!verify::no_overflow(bad));
  bad = q;
  bad.W_out.bias.elems[3] = INT32_MIN + 10;
  CHECK(!verify::no_overflow(bad));
}

TEST_CASE("no_overflow agrees with an exhaustive search on a 2-input int8 linear") {
  const std::int8_t weights[][2] = {{127, 127}, {-128, 127}, {-128, -128}, {5, -7}};
  for (const auto& w : weights) {
    const std::int64_t up = (w[0] >= 0 ? 127 : -128) * std::int64_t{w[0]} + (w[1] >= 0 ? 127 : -128) * std::int64_t{w[1]};
    const std::int64_t down = (w[0] >= 0 ? -128 : 127) * std::int64_t{w[0]} + (w[1] >= 0 ? -128 : 127) * std::int64_t{w[1]};
    for (const std::int64_t b : {std::int64_t{INT32_MAX} - up, std::int64_t{INT32_MAX} - up + 1,
                                 std::int64_t{INT32_MIN} - down, std::int64_t{INT32_MIN} - down - 1, std::int64_t{0}}) {
      if (b > INT32_MAX || b < INT32_MIN) continue;
      const auto bias = static_cast<std::int32_t>(b);
      sa::quantized_linear<2, 1> l;
      l.weight.elems[0] = w[0];
      l.weight.elems[1] = w[1];
      l.bias.elems[0] = bias;
      CAPTURE(bias);
      CHECK(verify::detail::linear_fits(l) == fits_exhaustively(bias, w[0], w[1]));
    }
  }
}
