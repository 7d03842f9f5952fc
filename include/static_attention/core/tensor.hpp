// SPDX-License-Identifier: BSL-1.0
// tensor<T, B, N, D>: a batch of B matrices of N x D (batch x tokens x features), contiguous.
#pragma once

#include <cstddef>
#include <type_traits>

#include <boost/hana/integral_constant.hpp>

#include <static_attention/core/detail/index_check.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/shape.hpp>

namespace static_attention {

/// A rank-3 tensor of B x N x D elements of T (batch x tokens x features), row-major and
/// contiguous, with no heap. Trivially copyable and structural, like `matrix`.
template <class T, std::size_t B, std::size_t N, std::size_t D>
struct tensor {
  static_assert(B > 0 && N > 0 && D > 0, "tensor<T, B, N, D> requires B, N and D > 0");
  static_assert(std::is_arithmetic_v<T>, "tensor<T, B, N, D> requires an arithmetic element type T");
  static_assert(is_plain_element<T>,
                "tensor<T, B, N, D> requires an element type T without const or volatile; for a read-only tensor, "
                "make the tensor const: const tensor<float, B, N, D>");

  using value_type = T;
  /// The matrix type of one batch item.
  using item_type = matrix<T, N, D>;
  /// Batch size, as a Hana integral constant (`M::batch()` is the value).
  static constexpr boost::hana::size_t<B> batch{};
  /// Rows (tokens) per batch item, as a Hana integral constant.
  static constexpr boost::hana::size_t<N> rows{};
  /// Columns (features), the last dimension, as a Hana integral constant.
  static constexpr boost::hana::size_t<D> cols{};
  /// Number of elements.
  static constexpr std::size_t size = B * N * D;

  /// Storage, batch-major then row-major. Public only so that the type is structural.
  T elems[B * N * D]{};

  /// Zeros.
  constexpr tensor() noexcept = default;

  /// One braced N x D block per batch item: `tensor<int, 2, 1, 2> t{{{1, 2}}, {{3, 4}}};`
  template <std::size_t... ItemRows, std::size_t... RowLengths>
  constexpr tensor(const T (&... init_items)[ItemRows][RowLengths]) noexcept {  // NOLINT: implicit on purpose
    // Row lengths are deduced, not fixed to D, so a short row is refused instead of zero-filled.
    if constexpr (!braced_rows_fit<shape<B, N>, braced_rows<ItemRows...>>) {
      static_assert(braced_rows_fit<shape<B, N>, braced_rows<ItemRows...>>,
                    "tensor<T, B, N, D>{...} requires exactly B braced items of N rows each");
    } else if constexpr (!braced_rows_fit<shape<B, D>, braced_rows<RowLengths...>>) {
      static_assert(braced_rows_fit<shape<B, D>, braced_rows<RowLengths...>>,
                    "tensor<T, B, N, D>{...} requires exactly D values in every row");
    } else {
      // An array of the items, not a fold expression: Clang limits folds to 256 operands.
      const T(*const items_given[])[D] = {init_items...};
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < N; ++i)
          for (std::size_t j = 0; j < D; ++j) elems[(b * N + i) * D + j] = items_given[b][i][j];
    }
  }

  /// Element (b, i, j). Out of range: a compile error in constant evaluation, an assertion at run time.
  constexpr T& operator()(std::size_t b, std::size_t i, std::size_t j) & noexcept {
    detail::check_index<B, N, D>(b, i, j);
    return elems[(b * N + i) * D + j];
  }
  constexpr const T& operator()(std::size_t b, std::size_t i, std::size_t j) const& noexcept {
    detail::check_index<B, N, D>(b, i, j);
    return elems[(b * N + i) * D + j];
  }
  /// Element (b, i, j) of a temporary, read-only: writing to a copy would change nothing.
  constexpr const T& operator()(std::size_t b, std::size_t i, std::size_t j) && noexcept {  // read-only: a copy
    detail::check_index<B, N, D>(b, i, j);
    return elems[(b * N + i) * D + j];
  }

  /// Batch item b, as a copy. Unlike PyTorch's `t[b]` it is not a view: its elements are
  /// read-only (`t[b](i, j) = x` does not compile, since it would change nothing); write
  /// `t(b, i, j) = x`, or replace the item with `set_item(t, b, m)`.
  constexpr item_type operator[](std::size_t b) const noexcept {
    detail::check_index<B>(b);
    item_type m;
    for (std::size_t k = 0; k < N * D; ++k) m.elems[k] = elems[b * N * D + k];
    return m;
  }

  constexpr T* data() noexcept { return elems; }
  constexpr const T* data() const noexcept { return elems; }
  constexpr T* begin() noexcept { return elems; }
  constexpr T* end() noexcept { return elems + size; }
  constexpr const T* begin() const noexcept { return elems; }
  constexpr const T* end() const noexcept { return elems + size; }

  /// Element-wise equality.
  friend constexpr bool operator==(const tensor&, const tensor&) = default;
};

/// `tensor t{{{1.0, 2.0}}, {{3.0, 4.0}}}` deduces `tensor<double, 2, 1, 2>`.
template <class T, std::size_t N, std::size_t D, class... U>
requires(std::is_same_v<T, U>&&...) tensor(const T (&first)[N][D], const U (&... rest)[N][D])
->tensor<T, 1 + sizeof...(U), N, D>;

/// Replaces batch item b of t with m.
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr void set_item(tensor<T, B, N, D>& t, std::size_t b, const matrix<T, N, D>& m) noexcept {
  detail::check_index<B>(b);
  for (std::size_t k = 0; k < N * D; ++k) t.elems[b * N * D + k] = m.elems[k];
}

/// Stacks matrices of one shape into a batch: `stack(a, b)` is `torch.stack([a, b])`.
template <class T, std::size_t N, std::size_t D, class... More>
constexpr auto stack(const matrix<T, N, D>& first, const More&... more) noexcept
    -> tensor<T, 1 + sizeof...(More), N, D> {
  static_assert((std::is_same_v<More, matrix<T, N, D>> && ...),
                "stack(a, b, ...) requires matrices of one element type and one shape");
  tensor<T, 1 + sizeof...(More), N, D> t;
  if constexpr ((std::is_same_v<More, matrix<T, N, D>> && ...)) {
    const matrix<T, N, D>* items[] = {&first, &more...};
    for (std::size_t b = 0; b < 1 + sizeof...(More); ++b) set_item(t, b, *items[b]);
  }
  return t;
}

/// A tensor with every element equal to `value`.
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr tensor<T, B, N, D> full(T value) noexcept {
  tensor<T, B, N, D> t;
  for (auto& x : t.elems) x = value;
  return t;
}
/// All zeros.
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr tensor<T, B, N, D> zeros() noexcept {
  return tensor<T, B, N, D>{};
}
/// All ones.
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr tensor<T, B, N, D> ones() noexcept {
  return full<T, B, N, D>(T{1});
}

namespace detail {
// Per-item operations as function objects (no lambdas in header templates: see elementwise.hpp).
struct transpose_fn {
  template <class M>
  constexpr auto operator()(const M& item) const noexcept {
    return transpose(item);
  }
};
struct sum_fn {
  template <class M>
  constexpr auto operator()(const M& item) const noexcept {
    return sum(item);
  }
};
struct max_fn {
  template <class M>
  constexpr auto operator()(const M& item) const noexcept {
    return max(item);
  }
};

// Applies f to each batch item and stacks the results.
template <class T, std::size_t B, std::size_t N, std::size_t D, class F>
constexpr auto per_item(const tensor<T, B, N, D>& t, const F& f) noexcept {
  using item_result = decltype(f(t[0]));
  tensor<typename item_result::value_type, B, item_result::rows(), item_result::cols()> out;
  for (std::size_t b = 0; b < B; ++b) set_item(out, b, f(t[b]));
  return out;
}

// A module and a generator, called as module(item, generator): training mode per batch item.
template <class Module, class G>
struct with_generator {
  const Module* module;
  G* gen;
  template <class M>
  constexpr auto operator()(const M& item) const noexcept {
    return (*module)(item, *gen);
  }
};
}  // namespace detail

/// Transposes the last two dimensions: (B x N x D) -> (B x D x N), as `t.transpose(1, 2)`.
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr tensor<T, B, D, N> transpose(const tensor<T, B, N, D>& t) noexcept {
  return detail::per_item(t, detail::transpose_fn{});
}
/// Sum over the last dimension, keeping it: (B x N x D) -> (B x N x 1).
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr tensor<T, B, N, 1> sum(const tensor<T, B, N, D>& t) noexcept {
  return detail::per_item(t, detail::sum_fn{});
}
/// Maximum over the last dimension, keeping it: (B x N x D) -> (B x N x 1).
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr tensor<T, B, N, 1> max(const tensor<T, B, N, D>& t) noexcept {
  return detail::per_item(t, detail::max_fn{});
}

}  // namespace static_attention
