// SPDX-License-Identifier: BSL-1.0
// Reductions as torch spells and computes them: sum, mean, var, max and argmax, over one
// dimension (`sum(x, dim<-1>)`, `mean(x, dim<-1>, keepdim)`) or over all elements
// (`sum(x, all_dims)`, torch's `x.sum()`).
//
// The sums add in torch 1.13's order on the CPU (its cascade sum with 8-lane AVX2 accumulators,
// one thread), so they print torch's digits: the chapter's 6 x 6 softmax sums to `tensor(1.)`,
// where a left-to-right sum gives 1.0000001. mean is that sum divided by the count, as torch's
// CPU mean is; var is torch's Welford over a dimension and its two-pass over all elements, both
// in double. tests/reduce checks every result bit for bit against torch 1.13 on random shapes.
//
// The results have torch's shapes: without keepdim the dimension goes (a matrix's row sums are
// a vector, the sum of all elements a scalar); with keepdim it stays with size 1. The older
// `sum(m)` and `max(m)` of matrix.hpp (row sums and row maxima as an R x 1 column, added left to
// right) are unchanged.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <static_attention/core/detail/reduce_cascade.hpp>
#include <static_attention/core/detail/reduce_welford.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/rank.hpp>
#include <static_attention/core/tensor.hpp>

namespace static_attention {

/// The dimension a reduction runs over, as torch's `dim=`: `dim<-1>` is the last one.
template <int D>
struct dim_t {
  /// The dimension as written (negative counts from the end).
  static constexpr int value = D;
};
/// `dim<D>`: the dimension a reduction runs over.
template <int D>
inline constexpr dim_t<D> dim{};

/// torch's `keepdim=True`: the reduced dimension stays, with size 1.
struct keepdim_t {
  explicit keepdim_t() = default;
};
/// `keepdim`: keep the reduced dimension with size 1.
inline constexpr keepdim_t keepdim{};

/// A reduction over every element (torch's `x.sum()`, `x.max()`): the result is a scalar.
struct all_dims_t {
  explicit all_dims_t() = default;
};
/// `all_dims`: reduce over every element.
inline constexpr all_dims_t all_dims{};

/// True when D names one of the Rank dimensions: -Rank <= D < Rank.
template <int D, std::size_t Rank>
inline constexpr bool reduce_dim_fits = D >= -static_cast<int>(Rank) && D < static_cast<int>(Rank);

namespace detail {

template <class M>
concept reducible = has_rank_sizes<M>;

template <class M>
inline constexpr std::size_t rank_of = rank_sizes<M>::sizes.size();

// D as an index from the front.
template <class M, int D>
inline constexpr std::size_t dim_index = static_cast<std::size_t>(D < 0 ? D + static_cast<int>(rank_of<M>) : D);

// The sizes after reducing dimension Dim: removed, or set to 1 with keepdim.
template <class M, std::size_t Dim, bool Keep>
constexpr auto reduced_sizes() noexcept {
  constexpr auto in = rank_sizes<M>::sizes;
  std::array<std::size_t, Keep ? in.size() : in.size() - 1> out{};
  std::size_t k = 0;
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (d == Dim) {
      if constexpr (Keep) out[k++] = 1;
    } else {
      out[k++] = in[d];
    }
  }
  return out;
}

template <class T, class M, std::size_t Dim, bool Keep, std::size_t... I>
auto reduced_type_of(std::index_sequence<I...>) -> typename of_sizes<T, reduced_sizes<M, Dim, Keep>()[I]...>::type;

// The type of reducing M over Dim, with elements of T.
template <class T, class M, std::size_t Dim, bool Keep>
using reduced_t =
    decltype(reduced_type_of<T, M, Dim, Keep>(std::make_index_sequence<reduced_sizes<M, Dim, Keep>().size()>{}));

// The product of sizes[from..to).
template <std::size_t N>
constexpr std::size_t size_product(const std::array<std::size_t, N>& sizes, std::size_t from, std::size_t to) noexcept {
  std::size_t p = 1;
  for (std::size_t d = from; d < to; ++d) p *= sizes[d];
  return p;
}

// M seen as outer x n x inner, reducing the n: the products of the sizes before and after Dim.
template <class M, std::size_t Dim>
struct split {
  static constexpr std::size_t outer = size_product(rank_sizes<M>::sizes, 0, Dim);
  static constexpr std::size_t n = rank_sizes<M>::sizes[Dim];
  static constexpr std::size_t inner = size_product(rank_sizes<M>::sizes, Dim + 1, rank_of<M>);
};

// The rule of every reduction over dim<D>; true when it holds, so the caller stops there.
template <int D, class M>
constexpr bool check_reduce_dim() noexcept {
  static_assert(reduce_dim_fits<D, rank_of<M>>, "sum/mean/var/max/argmax(x, dim<D>) requires -rank(x) <= D < rank(x)");
  return reduce_dim_fits<D, rank_of<M>>;
}

// Sums of the n elements of each (outer, inner) line, in torch's order.
template <class T>
constexpr void line_sums(const T* in, std::size_t outer, std::size_t n, std::size_t inner, T* out) noexcept {
  const auto sn = static_cast<std::int64_t>(n), si = static_cast<std::int64_t>(inner);
  for (std::size_t o = 0; o < outer; ++o) {
    const T* block = in + o * n * inner;
    if (inner == 1) {
      out[o] = torch_sum::contiguous_sum(block, sn);
    } else if (n == 1) {
      for (std::size_t j = 0; j < inner; ++j) out[o * inner + j] = T(0) + block[j];
    } else {
      torch_sum::outer_sums(block, sn, si, out + o * inner);
    }
  }
}

// The sum of all elements; integers add left to right (exact where torch's order would be).
template <class T>
constexpr T all_sum(const T* in, std::size_t n) noexcept {
  if constexpr (std::is_floating_point_v<T>) {
    return torch_sum::contiguous_sum(in, static_cast<std::int64_t>(n));
  } else {
    T s{};
    for (std::size_t k = 0; k < n; ++k) s = static_cast<T>(s + in[k]);
    return s;
  }
}

// The largest element of a line and its first index; a NaN wins at once, as in torch.
template <class T>
struct max_at {
  T value;
  std::int64_t index;
};
template <class T>
constexpr max_at<T> line_max(const T* in, std::size_t n, std::size_t stride) noexcept {
  max_at<T> best{in[0], 0};
  for (std::size_t i = 1; i < n && best.value == best.value; ++i) {
    const T x = in[i * stride];
    if (x > best.value || x != x) best = {x, static_cast<std::int64_t>(i)};
  }
  return best;
}

// The function objects behind each reduction over one dimension: out[o * inner + j] from the line.
struct max_line {
  template <class T, class U>
  constexpr void operator()(const T* line, std::size_t n, std::size_t inner, U& out, double) const noexcept {
    out = line_max(line, n, inner).value;
  }
};
struct argmax_line {
  template <class T, class U>
  constexpr void operator()(const T* line, std::size_t n, std::size_t inner, U& out, double) const noexcept {
    out = line_max(line, n, inner).index;
  }
};
struct var_line {
  template <class T, class U>
  constexpr void operator()(const T* line, std::size_t n, std::size_t inner, U& out, double correction) const noexcept {
    out = torch_var::welford(line, static_cast<std::int64_t>(n), static_cast<std::int64_t>(inner), correction);
  }
};

template <class Line, class U, int D, bool Keep, class M>
constexpr auto reduce_lines(const M& x, double correction) noexcept {
  if constexpr (!check_reduce_dim<D, M>()) {
    return scalar<U>{};
  } else {
    using S = split<M, dim_index<M, D>>;
    reduced_t<U, M, dim_index<M, D>, Keep> out;
    for (std::size_t o = 0; o < S::outer; ++o)
      for (std::size_t j = 0; j < S::inner; ++j)
        Line{}(x.elems + o * S::n * S::inner + j, S::n, S::inner, out.elems[o * S::inner + j], correction);
    return out;
  }
}

template <int D, bool Keep, class M>
constexpr auto sum_dim(const M& x) noexcept {
  using T = typename rank_sizes<M>::value_type;
  if constexpr (!check_reduce_dim<D, M>()) {
    return scalar<T>{};
  } else {
    using S = split<M, dim_index<M, D>>;
    reduced_t<T, M, dim_index<M, D>, Keep> out;
    if constexpr (std::is_floating_point_v<T>) {
      line_sums(x.elems, S::outer, S::n, S::inner, out.elems);
    } else {
      for (std::size_t o = 0; o < S::outer; ++o)
        for (std::size_t j = 0; j < S::inner; ++j) {
          T s{};
          for (std::size_t i = 0; i < S::n; ++i) s = static_cast<T>(s + x.elems[(o * S::n + i) * S::inner + j]);
          out.elems[o * S::inner + j] = s;
        }
    }
    return out;
  }
}

template <int D, bool Keep, class M>
constexpr auto mean_dim(const M& x) noexcept {
  using T = typename rank_sizes<M>::value_type;
  static_assert(std::is_floating_point_v<T>, "mean(x, dim<D>) requires a floating-point element type, as torch does");
  if constexpr (!check_reduce_dim<D, M>()) {
    return scalar<T>{};
  } else {
    auto out = sum_dim<D, Keep>(x);
    constexpr T n = static_cast<T>(split<M, dim_index<M, D>>::n);
    for (auto& v : out.elems) v = v / n;
    return out;
  }
}

// var over dimension D: Welford per line, but torch's two-pass over all elements when the
// result has one element (std_var_out's num_output_elements() <= 1 case).
template <int D, bool Keep, class M>
constexpr auto var_dim(const M& x, double correction) noexcept {
  using T = typename rank_sizes<M>::value_type;
  static_assert(std::is_floating_point_v<T>, "var(x, dim<D>) requires a floating-point element type, as torch does");
  if constexpr (!check_reduce_dim<D, M>()) {
    return scalar<T>{};
  } else if constexpr (split<M, dim_index<M, D>>::n == M::size) {
    reduced_t<T, M, dim_index<M, D>, Keep> out;
    const T m = all_sum(x.elems, M::size) / static_cast<T>(M::size);
    out.elems[0] = torch_var::two_pass(x.elems, static_cast<std::int64_t>(M::size), m, correction);
    return out;
  } else {
    return reduce_lines<var_line, T, D, Keep>(x, correction);
  }
}

// The optional `keepdim` argument: at most one, of type keepdim_t.
template <class K>
concept keepdim_flag = std::same_as<K, keepdim_t>;

}  // namespace detail

/// Sum over every element, in torch's order: torch's `x.sum()` (a 0-d tensor).
template <detail::reducible M>
constexpr auto sum(const M& x, all_dims_t) noexcept {
  using T = typename detail::rank_sizes<M>::value_type;
  return scalar<T>{detail::all_sum(x.elems, M::size)};
}
/// Sum of a vector's elements: torch's `v.sum()`.
template <class T, std::size_t N>
constexpr scalar<T> sum(const vector<T, N>& v) noexcept {
  return sum(v, all_dims);
}
/// Sum over dimension D, which goes: torch's `x.sum(dim=D)`; with `keepdim`, kept with size 1:
/// `x.sum(dim=D, keepdim=True)`.
template <detail::reducible M, int D, detail::keepdim_flag... Keep>
requires(sizeof...(Keep) <= 1) constexpr auto sum(const M& x, dim_t<D>, Keep...) noexcept {
  return detail::sum_dim<D, (sizeof...(Keep) > 0)>(x);
}

/// Mean of every element: torch's `x.mean()` (the sum in torch's order, divided by the count).
template <detail::reducible M>
constexpr auto mean(const M& x, all_dims_t = all_dims) noexcept {
  using T = typename detail::rank_sizes<M>::value_type;
  static_assert(std::is_floating_point_v<T>, "mean(x) requires a floating-point element type, as torch does");
  return scalar<T>{detail::all_sum(x.elems, M::size) / static_cast<T>(M::size)};
}
/// Mean over dimension D: torch's `x.mean(dim=D)`; with `keepdim`, `x.mean(dim=D, keepdim=True)`.
template <detail::reducible M, int D, detail::keepdim_flag... Keep>
requires(sizeof...(Keep) <= 1) constexpr auto mean(const M& x, dim_t<D>, Keep...) noexcept {
  return detail::mean_dim<D, (sizeof...(Keep) > 0)>(x);
}

/// Variance of every element: torch's `x.var(unbiased=...)` (divides by n - 1, or n).
template <detail::reducible M>
constexpr auto var(const M& x, all_dims_t = all_dims, bool unbiased = true) noexcept {
  using T = typename detail::rank_sizes<M>::value_type;
  static_assert(std::is_floating_point_v<T>, "var(x) requires a floating-point element type, as torch does");
  const T m = mean(x).item();
  return scalar<T>{detail::torch_var::two_pass(x.elems, static_cast<std::int64_t>(M::size), m, unbiased ? 1.0 : 0.0)};
}
/// Variance over dimension D: torch's `x.var(dim=D, unbiased=...)`.
template <detail::reducible M, int D>
constexpr auto var(const M& x, dim_t<D>, bool unbiased = true) noexcept {
  return detail::var_dim<D, false>(x, unbiased ? 1.0 : 0.0);
}
/// Variance over dimension D, kept with size 1: torch's `x.var(dim=D, keepdim=True, unbiased=...)`.
template <detail::reducible M, int D>
constexpr auto var(const M& x, dim_t<D>, keepdim_t, bool unbiased = true) noexcept {
  return detail::var_dim<D, true>(x, unbiased ? 1.0 : 0.0);
}

/// Largest element (NaN if any is NaN): torch's `x.max()`.
template <detail::reducible M>
constexpr auto max(const M& x, all_dims_t) noexcept {
  using T = typename detail::rank_sizes<M>::value_type;
  return scalar<T>{detail::line_max(x.elems, M::size, 1).value};
}
/// Largest element over dimension D: the values of torch's `x.max(dim=D)`; with `keepdim`,
/// `x.max(dim=D, keepdim=True).values`.
template <detail::reducible M, int D, detail::keepdim_flag... Keep>
requires(sizeof...(Keep) <= 1) constexpr auto max(const M& x, dim_t<D>, Keep...) noexcept {
  using T = typename detail::rank_sizes<M>::value_type;
  return detail::reduce_lines<detail::max_line, T, D, (sizeof...(Keep) > 0)>(x, 0);
}

/// Index of the largest element in row-major order (the first one; the first NaN): `x.argmax()`.
template <detail::reducible M>
constexpr scalar<std::int64_t> argmax(const M& x, all_dims_t) noexcept {
  return scalar<std::int64_t>{detail::line_max(x.elems, M::size, 1).index};
}
/// Index of the largest element along dimension D, as int64: torch's `x.argmax(dim=D)`; with
/// `keepdim`, `x.argmax(dim=D, keepdim=True)`.
template <detail::reducible M, int D, detail::keepdim_flag... Keep>
requires(sizeof...(Keep) <= 1) constexpr auto argmax(const M& x, dim_t<D>, Keep...) noexcept {
  return detail::reduce_lines<detail::argmax_line, std::int64_t, D, (sizeof...(Keep) > 0)>(x, 0);
}

}  // namespace static_attention
