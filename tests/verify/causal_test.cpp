// SPDX-License-Identifier: BSL-1.0
// Causality at run time: later rows of +-inf, NaN and +-FLT_MAX leave the earlier rows of
// causal_attention, multi_head_attention, transformer_block and the tiny GPT bit for bit
// unchanged (the property verify::causal proves); and a planted leak (a mask that lets row 2
// see row 5) is both real at run time and rejected by verify::causal.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <doctest/doctest.h>

#include <static_attention/core/math.hpp>
#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/torch_init.hpp>
#include <static_attention/verify.hpp>

namespace sa = static_attention;
namespace verify = sa::verify;

namespace {
constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float big = std::numeric_limits<float>::max();
const std::array<float, 5> specials{inf, -inf, std::numeric_limits<float>::quiet_NaN(), big, -big};

template <class Module>
Module initialised(std::uint64_t seed) {
  Module m;
  sa::torch_generator gen{seed};
  sa::init_like_torch(m, gen);
  return m;
}

template <std::size_t N, std::size_t D>
sa::matrix<float, N, D> random_rows(std::uint64_t seed) {
  std::uint64_t s = seed;
  sa::matrix<float, N, D> x;
  for (auto& v : x) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    v = static_cast<float>(static_cast<double>(s >> 40) / static_cast<double>(1u << 23) - 1.0);
  }
  return x;
}

// True if rows [0, p) of a and b are the same bits.
template <std::size_t N, std::size_t C>
bool same_rows(const sa::matrix<float, N, C>& a, const sa::matrix<float, N, C>& b, std::size_t p) {
  for (std::size_t k = 0; k < p * C; ++k)
    if (std::bit_cast<std::uint32_t>(a.elems[k]) != std::bit_cast<std::uint32_t>(b.elems[k])) return false;
  return true;
}

// For every split p and every special value, rows >= p all set to it (and, separately, only
// one element of row p set to it): rows < p of m's output unchanged. Returns the failures.
template <class Module, std::size_t N, std::size_t D>
std::size_t leaks(const Module& m, const sa::matrix<float, N, D>& x) {
  const auto base = m(x);
  std::size_t bad = 0;
  for (std::size_t p = 1; p < N; ++p)
    for (const float v : specials) {
      auto all = x;
      for (std::size_t k = p * D; k < N * D; ++k) all.elems[k] = v;
      auto one = x;
      one.elems[p * D + (p % D)] = v;
      if (!same_rows(base, m(all), p)) ++bad;
      if (!same_rows(base, m(one), p)) ++bad;
    }
  return bad;
}

inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};

sa::gpt_model<float, tiny>& tiny_model() {
  static sa::gpt_model<float, tiny> model = [] {
    sa::gpt_model<float, tiny> m;
    sa::torch_generator gen{123};
    sa::init_like_torch(m, gen);
    return m;
  }();
  return model;
}

// Attention with a test-only mask: causal, except that row 2 also sees row 5 (a planted leak).
struct leaky_attention {
  static constexpr std::size_t in_features = 4;
  static constexpr std::size_t max_tokens = 8;
  sa::matrix<float, 4, 4> W_query, W_key, W_value;
  static constexpr bool sees(std::size_t i, std::size_t j) noexcept { return j <= i || (i == 2 && j == 5); }
  static constexpr const sa::matrix<float, 1, 4>* no_bias = nullptr;
  struct mask {
    constexpr bool operator()(std::size_t i, std::size_t j) const noexcept { return sees(i, j); }
  };
  template <std::size_t N>
  sa::matrix<float, N, 4> operator()(const sa::matrix<float, N, 4>& x) const {
    const auto q = sa::matmul(x, W_query), k = sa::matmul(x, W_key), v = sa::matmul(x, W_value);
    sa::matrix<float, N, 4> y;
    for (std::size_t i = 0; i < N; ++i) {
      float w[N]{}, top = -inf, sum = 0;
      for (std::size_t j = 0; j < N; ++j)
        if (sees(i, j)) {
          for (std::size_t c = 0; c < 4; ++c) w[j] += q(i, c) * k(j, c) / 2.0f;
          top = w[j] > top ? w[j] : top;
        }
      for (std::size_t j = 0; j < N; ++j)
        if (sees(i, j)) sum += (w[j] = sa::exp(w[j] - top));
      for (std::size_t j = 0; j < N; ++j)
        if (sees(i, j))
          for (std::size_t c = 0; c < 4; ++c) y(i, c) += w[j] / sum * v(j, c);
    }
    return y;
  }
  /// Its pass for verify::causal, over S's steps.
  template <class S, class X>
  constexpr auto dependencies(const X& x) const noexcept {
    const auto q = S::template affine<float>(x, W_query, no_bias);
    const auto k = S::template affine<float>(x, W_key, no_bias);
    const auto v = S::template affine<float>(x, W_value, no_bias);
    return S::masked_weighted_values(S::masked_softmax(S::masked_scores(q, k, mask{}), mask{}), v, mask{});
  }
};
}  // namespace

TEST_CASE("causal at run time: later rows of +-inf, NaN, +-FLT_MAX leave earlier rows bit for bit") {
  const auto x = random_rows<6, 4>(7);
  sa::causal_attention<float, 4, 4> ca;
  ca.W_query = initialised<sa::linear_layer<float, 4, 4>>(1).weight;
  ca.W_key = initialised<sa::linear_layer<float, 4, 4>>(2).weight;
  ca.W_value = initialised<sa::linear_layer<float, 4, 4>>(3).weight;
  CHECK(leaks(ca, x) == 0);
  CHECK(leaks(initialised<sa::multi_head_attention<float, 4, 4, 2>>(2), x) == 0);
  CHECK(leaks(initialised<sa::transformer_block<float, 4, 2>>(3), x) == 0);
  CHECK(leaks(initialised<sa::transformer_block<float, 4, 2, sa::no_context_limit, true>>(4), x) == 0);
}

TEST_CASE("causal at run time: the tiny GPT, with a token whose embedding is +-inf, NaN or +-FLT_MAX") {
  const auto& model = tiny_model();
  static sa::gpt_model<float, tiny> poisoned;
  constexpr std::array<int, 8> ids{5, 17, 42, 3, 9, 11, 0, 21};
  constexpr int bad_token = 63;
  const auto base = model(ids);
  std::size_t bad = 0;
  for (const float v : specials) {
    poisoned = model;
    for (std::size_t c = 0; c < tiny.emb_dim; ++c) poisoned.tok_emb.weight(bad_token, c) = v;
    CHECK(same_rows(base, poisoned(ids), 8));  // the token unused: all rows the same bits
    for (std::size_t p = 1; p < 8; ++p) {
      auto later = ids;
      for (std::size_t k = p; k < 8; ++k) later[k] = bad_token;
      if (!same_rows(base, poisoned(later), p)) ++bad;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("a planted leak (row 2 sees row 5) is real at run time and rejected by verify::causal") {
  leaky_attention m;
  m.W_query = initialised<sa::linear_layer<float, 4, 4>>(1).weight;
  m.W_key = initialised<sa::linear_layer<float, 4, 4>>(2).weight;
  m.W_value = initialised<sa::linear_layer<float, 4, 4>>(3).weight;
  const auto x = random_rows<6, 4>(7);
  CHECK(leaks(m, x) > 0);  // the run-time check sees it
  auto poisoned = x;
  poisoned(5, 0) = std::numeric_limits<float>::quiet_NaN();
  const auto y = m(poisoned);
  CHECK(y(2, 0) != y(2, 0));  // row 2 is NaN
  CHECK(same_rows(m(x), y, 2));
  CHECK(!verify::causal(m));
  CHECK(!verify::causal<6>(m));
  CHECK(verify::causal<2>(m));  // with 2 rows, there is no row 5 to see
  // The analysis of the same steps with the library's causal mask accepts it.
  static_assert(verify::causal(sa::causal_attention<float, 4, 4>{}));
}
