// SPDX-License-Identifier: BSL-1.0
// Compile-time benchmark fixture: self-attention of N tokens x D features (d_in = d_out = D)
// through the library. With -DSA_EVAL the forward pass is evaluated in a static_assert;
// without it the same templates are only instantiated, so the difference is evaluation time.
// Driven by run.py in this directory.
#include <cstddef>

#include <static_attention/nn/self_attention.hpp>

#ifndef SA_N
#define SA_N 8
#endif
#ifndef SA_D
#define SA_D SA_N
#endif

namespace sa = static_attention;
constexpr std::size_t N = SA_N;
constexpr std::size_t D = SA_D;

// Deterministic inputs in [-0.78, 0.78]; the raw baseline generates the same values.
template <std::size_t R, std::size_t C>
constexpr sa::matrix<float, R, C> gen(std::size_t seed) {
  sa::matrix<float, R, C> m;
  for (std::size_t i = 0; i < R * C; ++i)
    m.elems[i] = static_cast<float>(static_cast<int>((i * 37 + seed * 11) % 101) - 50) / 64.0f;
  return m;
}

constexpr sa::self_attention<float, D, D> attn{gen<D, D>(1), gen<D, D>(2), gen<D, D>(3)};

// Instantiates the forward pass in both variants.
sa::matrix<float, N, D> run(const sa::matrix<float, N, D>& x) { return attn(x); }

#ifdef SA_EVAL
constexpr auto context = attn(gen<N, D>(4));
static_assert(context.elems[0] == context.elems[0] && context.elems[N * D - 1] == context.elems[N * D - 1]);
#endif
