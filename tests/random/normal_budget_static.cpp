// SPDX-License-Identifier: BSL-1.0
// Constant-evaluation budget (compile-only, a type-level and constexpr check): the chapter-4 tiny
// GPT's embeddings, normal<T, 64, 16> then normal<T, 8, 16> from one generator, evaluated under
// a fixed budget about 25% above what they take, so that a costlier kernel fails here first.
// CMake compiles this file once per element type with -DSA_NORMAL_BUDGET_T=float or double and
// the matching -fconstexpr-steps (Clang) or -fconstexpr-ops-limit (GCC).
#include <static_attention/core/random.hpp>

namespace sa = static_attention;

constexpr bool tiny_gpt_embeddings_draw() {
  sa::torch_generator gen{123};
  const auto tok = sa::normal<SA_NORMAL_BUDGET_T, 64, 16>(gen);
  const auto pos = sa::normal<SA_NORMAL_BUDGET_T, 8, 16>(gen);
  return tok(0, 0) != pos(0, 0);
}

static_assert(tiny_gpt_embeddings_draw());
