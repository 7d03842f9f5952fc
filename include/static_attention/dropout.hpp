// Dropout on attention weights: deterministic from a generator's seed, off unless asked for.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <static_attention/shape.hpp>

namespace static_attention {

/// A source of 32-bit random draws, such as `torch_generator`.
template <class G>
concept random_source = requires(G& g) {
  { g.random() } -> std::same_as<std::uint32_t>;
};

namespace detail {
// Not constexpr: reaching it in constant evaluation reports the bad probability.
inline void dropout_probability_outside_0_1() noexcept {}

template <class T>
constexpr T checked_dropout_p(T p) noexcept {
  if (!(p >= T{0} && p <= T{1})) {
    if (std::is_constant_evaluated()) dropout_probability_outside_0_1();
    assert(false && "static_attention: dropout probability must be in [0, 1]");
    return T{0};  // never UB: an invalid probability disables dropout
  }
  return p;
}
}  // namespace detail

/// Zeroes each element with probability p and scales the kept ones by 1 / (1 - p), as
/// `torch.nn.Dropout(p)` in training mode. Element k is kept when the k-th draw, taken as a
/// 24-bit uniform number in [0, 1) like `torch.rand`, is below 1 - p; so the mask depends only
/// on the generator's seed and the order of the elements. (It is not the mask PyTorch's own
/// bernoulli_ kernel draws: that depends on its vectorised implementation.) p = 0 returns m
/// unchanged and draws nothing; p = 1 gives zeros. p outside [0, 1] is a compile error in
/// constant evaluation.
template <dense M, random_source G>
constexpr M dropout(const M& m, value_type_t<M> p, G& gen) noexcept {
  using T = value_type_t<M>;
  p = detail::checked_dropout_p(p);
  if (p == T{0}) return m;
  M out;
  if (p == T{1}) return out;
  const T keep = T{1} - p;
  const T scale = T{1} / keep;
  for (std::size_t k = 0; k < M::size; ++k) {
    const double u = static_cast<double>(gen.random() & 0xFFFFFFu) * 0x1p-24;
    out.elems[k] = u < static_cast<double>(keep) ? m.elems[k] * scale : T{0};
  }
  return out;
}

}  // namespace static_attention
