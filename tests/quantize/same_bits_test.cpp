// SPDX-License-Identifier: BSL-1.0
// Same bits at both times: the quantized models' outputs (attention and the tiny GPT), computed in a static constexpr
// variable and again at run time on inputs read through volatile, compared bit for bit (integers
// plus the two float ends: one rounded product in, one out).
#include <array>
#include <bit>
#include <cstdint>

#include <static_attention/quant.hpp>

#include "quantize_gpt_models.hpp"
#include "quantize_models.hpp"

#include <doctest/doctest.h>

namespace sa = static_attention;
namespace qm = quant_models;
namespace qg = quant_gpt_models;

namespace {
template <class M>
bool same_bits(const M& a, const M& b) {
  for (std::size_t k = 0; k < M::size; ++k)
    if (std::bit_cast<std::uint32_t>(a.elems[k]) != std::bit_cast<std::uint32_t>(b.elems[k])) return false;
  return true;
}
template <class T>
T launder(const T& x) {
  const T* volatile p = &x;
  return *p;
}
}  // namespace

TEST_CASE("chapter: int8 attention gives the constant evaluator's bits") {
  static constexpr auto expected = qm::chapter_q(qm::chapter_inputs);
  static constexpr auto codes = qm::chapter_q.forward_integer(qm::chapter_q.quantize_input(qm::chapter_inputs));
  const auto q = launder(qm::chapter_q);
  CHECK(same_bits(q(launder(qm::chapter_inputs)), expected));
  CHECK(q.forward_integer(q.quantize_input(launder(qm::chapter_inputs))) == codes);
  CHECK(same_bits(qm::chapter_q(qm::chapter_inputs), expected));
}

TEST_CASE("16 -> 16, four heads: int8 attention gives the constant evaluator's bits") {
  static constexpr auto expected = qm::mha16_q(qm::mha16_held_out);
  static constexpr auto expected_bias = qm::mha16_bias_q(qm::mha16_held_out);
  const auto x = launder(qm::mha16_held_out);
  CHECK(same_bits(launder(qm::mha16_q)(x), expected));
  CHECK(same_bits(launder(qm::mha16_bias_q)(x), expected_bias));
}

TEST_CASE("quantize() at run time gives the constexpr model") {
  const auto m = launder(qm::mha16);
  const auto calibration = launder(qm::mha16_calibration);
  CHECK(sa::quantize(m, calibration) == qm::mha16_q);
  CHECK(sa::calibrate(m, calibration) == qm::mha16_ranges);
}

TEST_CASE("tiny GPT: int8 logits are the constant evaluator's bits") {
  static constexpr auto expected = qg::q(qg::held_out);
  static constexpr auto codes = qg::q.forward_integer(std::array<int, 8>{5, 17, 42, 63, 0, 9, 31, 2});
  const auto q = launder(qg::q);
  const auto ids = launder(qg::held_out);
  CHECK(same_bits(q(ids), expected));
  CHECK(q.forward_integer(launder(std::array<int, 8>{5, 17, 42, 63, 0, 9, 31, 2})) == codes);
}

TEST_CASE("tiny GPT: calibrate() and quantize() at run time give the constexpr ranges and model") {
  const auto m = launder(qg::model);
  const auto calibration = launder(qg::calibration);
  const auto ranges = sa::calibrate(m, calibration);
  CHECK(ranges == qg::ranges);
  CHECK(sa::quantize(m, ranges) == qg::q);
}
