// SPDX-License-Identifier: BSL-1.0
// Dropout: deterministic from a generator's seed, off unless asked for.
#pragma once

#include <cstddef>

#include <static_attention/core/random.hpp>
#include <static_attention/core/shape.hpp>
#include <static_attention/nn/detail/dropout_draw.hpp>

namespace static_attention {

/// Zeroes each element with probability p and scales the kept ones by 1 / (1 - p), as
/// `torch.nn.Dropout(p)` in training mode. Element k is kept when the k-th draw, taken as a
/// 24-bit uniform number in [0, 1) like `torch.rand`, is below 1 - p; so the mask depends only
/// on the generator's seed and the order of the elements. (It is not the mask PyTorch's own
/// bernoulli_ kernel draws: that depends on its vectorised implementation.) p = 0 returns m
/// unchanged and draws nothing; p = 1 gives zeros. p outside [0, 1] is a compile error in
/// constant evaluation.
template <dense M, random_source G>
constexpr M dropout(const M& m, value_type_t<M> p, G& gen) noexcept {
  M out;
  detail::dropout_elems(m.elems, out.elems, M::size, M::size, detail::checked_dropout_p(p), gen);
  return out;
}

}  // namespace static_attention
