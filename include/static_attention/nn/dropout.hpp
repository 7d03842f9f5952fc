// SPDX-License-Identifier: BSL-1.0
// Dropout: deterministic from a generator's seed, off unless asked for.
#pragma once

#include <cstddef>

#include <static_attention/core/random.hpp>
#include <static_attention/core/shape.hpp>
#include <static_attention/nn/detail/dropout_draw.hpp>

namespace static_attention {

/// Zeroes each element with probability p and scales the kept ones by 1 / (1 - p), as
/// `torch.nn.Dropout(p)` in training mode, with the mask torch 1.13 draws on the CPU (without
/// MKL: Debian's python3-torch, and the book's notebooks' runs) after the same seed. Element k,
/// in row-major order (a batch tensor item by item), takes two 32-bit draws of gen, read as one
/// 53-bit uniform u in [0, 1) (torch's random64() and uniform_real<double>), and is kept when
/// u < 1 - p; the kept value is m[k] * (1 / (1 - p)), the scale rounded to the element type. So
/// one call on a B x N x D tensor draws as torch's one call on the (B, N, D) tensor. p = 0
/// returns m unchanged and draws nothing; p = 1 gives zeros and draws nothing. p outside [0, 1]
/// is a compile error in constant evaluation.
template <dense M, random_source G>
constexpr M dropout(const M& m, value_type_t<M> p, G& gen) noexcept {
  M out;
  detail::dropout_elems(m.elems, out.elems, M::size, M::size, detail::checked_dropout_p(p), gen);
  return out;
}

}  // namespace static_attention
