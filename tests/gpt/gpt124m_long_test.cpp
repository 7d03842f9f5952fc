// SPDX-License-Identifier: BSL-1.0
// Reliability under a long run: GPT-2 124M decodes from "Hello, I am" to its full context of
// 1024 tokens through one workspace, one token per step; at sampled positions the logits are
// compared, bit for bit, with a recomputation of the whole sequence from scratch (a fresh
// workspace), and the ids there with the recomputation's argmax. About a minute at -O2: a long
// test, built with STATIC_ATTENTION_LONG_TESTS (on in one preset of the test command).
#include <array>
#include <bit>
#include <cstdint>
#include <memory>

#include <doctest/doctest.h>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>

#include "gpt_reference.hpp"
#include "gpt_test_support.hpp"

namespace sa = static_attention;
namespace ref = reference::gpt;

namespace {

using gpt2 = sa::gpt_model<float, sa::gpt2_124m>;
using workspace = sa::gpt_workspace<float, sa::gpt2_124m, 1024>;
using logits_row = sa::matrix<float, 1, 50257>;

constexpr std::array<std::size_t, 4> samples{4, 64, 511, 1023};  // positions whose logits are compared

// The logits of position Len - 1 recomputed from the first Len ids alone.
template <std::size_t Len>
logits_row recompute(const gpt2& m, const std::array<int, 1024>& ids) {
  auto ws = std::make_unique<workspace>();
  std::array<int, Len> prefix{};
  for (std::size_t i = 0; i < Len; ++i) prefix[i] = ids[i];
  return m.head(m.prefill(prefix, *ws).value());
}

bool same_bits(const logits_row& a, const logits_row& b) {
  for (std::size_t k = 0; k < a.size; ++k)
    if (std::bit_cast<std::uint32_t>(a.elems[k]) != std::bit_cast<std::uint32_t>(b.elems[k])) return false;
  return true;
}

}  // namespace

TEST_CASE("GPT-2 124M decodes to its full context of 1024 tokens, as the full recomputation") {
  static gpt2 m;
  sa::torch_generator gen{123};
  sa::init_like_torch(m, gen);
  static workspace ws;
  static std::array<logits_row, samples.size()> cached{};
  std::array<int, 1024> ids{15496, 11, 314, 716};  // "Hello, I am"
  // Prompt once, then one token per step: the loop generate() runs, keeping sampled logits.
  logits_row logits = m.head(m.prefill(std::array<int, 4>{15496, 11, 314, 716}, ws).value());
  for (std::size_t len = 4; len < 1024; ++len) {
    for (std::size_t s = 0; s < samples.size(); ++s)
      if (samples[s] == len) cached[s] = logits;
    ids[len] = static_cast<int>(sa::detail::argmax(sa::softmax(logits)));
    if (len + 1 < 1024) logits = m.head(m.hidden(std::array<int, 1>{ids[len]}, ws).value());
  }
  CHECK(ws.length() == 1023);
  // The book's continuation, and generate() through the same workspace agrees over its first
  // 128 ids (the loop above is generate's; a second decode to 1024 would double the test's time).
  for (std::size_t i = 0; i < 10; ++i) CHECK(ids[i] == ref::gpt124m_generated[i]);
  const auto generated = sa::generate<124>(m, std::array<int, 4>{15496, 11, 314, 716}, ws).value();
  for (std::size_t i = 0; i < generated.size(); ++i) CHECK(generated[i] == ids[i]);
  // The logits at sampled positions, bit for bit, against a fresh recomputation.
  CHECK(same_bits(cached[0], recompute<4>(m, ids)));
  CHECK(same_bits(cached[1], recompute<64>(m, ids)));
  CHECK(same_bits(cached[2], recompute<511>(m, ids)));
  CHECK(same_bits(cached[3], recompute<1023>(m, ids)));
}
