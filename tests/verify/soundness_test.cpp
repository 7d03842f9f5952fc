// SPDX-License-Identifier: BSL-1.0
// Soundness of verify::bound (run time): no output of a module's forward pass, at any of many
// sampled points of the set and its random vertices, escapes the bound, in either domain; and
// the planted faults (a policy that rounds inward, a softmax that ignores the mask, a LayerNorm
// with a fixed variance) are caught by the same check.
#include <array>
#include <cstddef>
#include <cstdint>

#include <doctest/doctest.h>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/torch_init.hpp>
#include <static_attention/verify.hpp>

namespace sa = static_attention;
namespace verify = sa::verify;

namespace {
struct inward : verify::sound_policy {
  static constexpr bool round_inward = true;
};
struct unmasked : verify::sound_policy {
  static constexpr bool softmax_ignores_mask = true;
};
struct fixed_variance : verify::sound_policy {
  static constexpr bool layer_norm_fixed_variance = true;
};

// A uniform float in [-1, 1] from a 64-bit LCG.
struct sampler {
  std::uint64_t s = 0x9E3779B97F4A7C15u;
  float next() {
    s = s * 6364136223846793005u + 1442695040888963407u;
    return static_cast<float>(static_cast<double>(s >> 40) / static_cast<double>(1u << 23) - 1.0);
  }
};

template <std::size_t N, std::size_t D>
sa::matrix<float, N, D> centre(float scale) {
  sampler g{12345};
  sa::matrix<float, N, D> x;
  for (auto& v : x) v = scale * g.next();
  return x;
}

// How many of `samples` points (half of them vertices) of ball(x, eps) have an output outside
// the bound of domain D.
template <class D, class Module, std::size_t N, std::size_t C>
std::size_t violations(const Module& m, const sa::matrix<float, N, C>& x, float eps, std::size_t samples) {
  const auto b = verify::bound<D>(m, verify::ball(x, eps));
  sampler g;
  std::size_t bad = 0;
  for (std::size_t s = 0; s < samples; ++s) {
    sa::matrix<float, N, C> p = x;
    for (auto& v : p) {
      const float r = g.next();
      v += s % 2 == 0 ? eps * r : (r < 0 ? -eps : eps);
    }
    if (!b.contains(m(p))) ++bad;
  }
  if (!b.contains(m(x))) ++bad;
  return bad;
}

template <class Module>
Module initialised(std::uint64_t seed) {
  Module m;
  sa::torch_generator gen{seed};
  sa::init_like_torch(m, gen);
  return m;
}

constexpr std::size_t samples = 20000;
// Zonotopes with fresh symbols for the step errors (12 input elements, 2 x 12 fresh).
using fresh = verify::zonotope<0, verify::sound_policy, 24>;
}  // namespace

TEST_CASE("bound: no sampled output escapes, in either domain, at eps 2^-10, 2^-4 and 0") {
  const auto lin = initialised<sa::linear_layer<float, 4, 6>>(1);
  auto ln = initialised<sa::layer_norm<float, 4>>(2);
  ln.scale = sa::matrix<float, 1, 4>{{1.5f, -0.5f, 0.75f, 2.0f}};
  ln.shift = sa::matrix<float, 1, 4>{{0.1f, 0.2f, -0.3f, 0.0f}};
  const auto ff = initialised<sa::feed_forward<float, 4, 16>>(3);
  sa::causal_attention<float, 4, 4> ca;
  const auto lin_q = initialised<sa::linear_layer<float, 4, 4>>(4);
  ca.W_query = lin_q.weight;
  ca.W_key = initialised<sa::linear_layer<float, 4, 4>>(5).weight;
  ca.W_value = initialised<sa::linear_layer<float, 4, 4>>(6).weight;
  sa::self_attention<float, 4, 4> sa_{ca.W_query, ca.W_key, ca.W_value};
  const auto mha = initialised<sa::multi_head_attention<float, 4, 4, 2>>(7);
  const auto block = initialised<sa::transformer_block<float, 4, 2>>(8);
  const auto x = centre<3, 4>(2.0f);
  for (const float eps : {0x1p-10f, 0x1p-4f, 0.0f}) {
    CAPTURE(eps);
    CHECK(violations<verify::ibp>(lin, x, eps, samples) == 0);
    CHECK(violations<verify::relational>(lin, x, eps, samples) == 0);
    CHECK(violations<verify::ibp>(ln, x, eps, samples) == 0);
    CHECK(violations<verify::relational>(ln, x, eps, samples) == 0);
    CHECK(violations<verify::ibp>(ff, x, eps, samples) == 0);
    CHECK(violations<verify::relational>(ff, x, eps, samples) == 0);
    CHECK(violations<verify::ibp>(ca, x, eps, samples) == 0);
    CHECK(violations<verify::relational>(ca, x, eps, samples) == 0);
    CHECK(violations<verify::ibp>(sa_, x, eps, samples) == 0);
    CHECK(violations<verify::relational>(sa_, x, eps, samples) == 0);
    CHECK(violations<verify::ibp>(mha, x, eps, samples) == 0);
    CHECK(violations<verify::relational>(mha, x, eps, samples) == 0);
    CHECK(violations<verify::ibp>(block, x, eps, samples) == 0);
    CHECK(violations<verify::relational>(block, x, eps, samples) == 0);
    CHECK(violations<fresh>(block, x, eps, samples) == 0);
  }
}

TEST_CASE("planted faults are caught: inward rounding, a softmax that ignores the mask, a fixed variance") {
  const auto lin = initialised<sa::linear_layer<float, 4, 6>>(1);
  const auto x = centre<3, 4>(2.0f);
  CHECK(violations<verify::ibp_with<inward>>(lin, x, 0.0f, 10) > 0);
  CHECK(violations<verify::zonotope<0, inward>>(lin, x, 0.0f, 10) > 0);
  sa::causal_attention<float, 4, 4> ca;
  ca.W_query = initialised<sa::linear_layer<float, 4, 4>>(4).weight;
  ca.W_key = initialised<sa::linear_layer<float, 4, 4>>(5).weight;
  ca.W_value = initialised<sa::linear_layer<float, 4, 4>>(6).weight;
  CHECK(violations<verify::ibp_with<unmasked>>(ca, x, 0x1p-10f, 1000) > 0);
  CHECK(violations<verify::zonotope<0, unmasked>>(ca, x, 0x1p-10f, 1000) > 0);
  sa::layer_norm<float, 4> ln;
  ln.scale = sa::ones<float, 1, 4>();
  CHECK(violations<verify::ibp_with<fixed_variance>>(ln, x, 0.25f, 20000) > 0);
  CHECK(violations<verify::zonotope<0, fixed_variance>>(ln, x, 0.25f, 20000) > 0);
}
