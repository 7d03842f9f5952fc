// SPDX-License-Identifier: BSL-1.0
// matrix<T, Rows, Cols>: a fixed-shape, row-major, contiguous matrix whose shape is its type.
#pragma once

#include <cstddef>
#include <type_traits>

#include <boost/hana/integral_constant.hpp>

#include <static_attention/core/detail/index_check.hpp>
#include <static_attention/core/shape.hpp>
#include <static_attention/core/shape_rules.hpp>

namespace static_attention {

namespace detail {
/// Tag of matrix's constructor that leaves the elements for a kernel to write.
struct uninitialized_t {
  explicit uninitialized_t() = default;
};
inline constexpr uninitialized_t uninitialized{};
}  // namespace detail

/// A Rows x Cols matrix of T, row-major and contiguous, with no heap.
///
/// Trivially copyable and structural (it can be a template argument). Every operation on it is
/// constexpr. Default construction gives zeros; nested braces give the rows:
/// `matrix<double, 2, 3> m{{1, 2, 3}, {4, 5, 6}};`
template <class T, std::size_t Rows, std::size_t Cols>
struct matrix {
  static_assert(Rows > 0 && Cols > 0, "matrix<T, Rows, Cols> requires Rows > 0 and Cols > 0");
  static_assert(std::is_arithmetic_v<T>, "matrix<T, Rows, Cols> requires an arithmetic element type T");
  static_assert(is_plain_element<T>,
                "matrix<T, Rows, Cols> requires an element type T without const or volatile; for a read-only "
                "matrix, make the matrix const: const matrix<float, Rows, Cols>");

  using value_type = T;
  /// Number of rows, as a Hana integral constant (`M::rows()` is the value).
  static constexpr boost::hana::size_t<Rows> rows{};
  /// Number of columns, as a Hana integral constant (`M::cols()` is the value).
  static constexpr boost::hana::size_t<Cols> cols{};
  /// Number of elements.
  static constexpr std::size_t size = Rows * Cols;

  /// Row-major storage. Public only so that the type is structural; prefer `m(i, j)`.
  T elems[Rows * Cols];

  /// Zeros.
  constexpr matrix() noexcept : elems{} {}

  /// Storage the library fills at once (a kernel's result): not zeroed first, which for small
  /// products costs as much as the product.
  constexpr explicit matrix(detail::uninitialized_t) noexcept {}

  /// One braced list per row; the number of rows and columns must match the type.
  template <std::size_t... RowLengths>
  constexpr matrix(const T (&... init_rows)[RowLengths]) noexcept {  // NOLINT: implicit on purpose
    if constexpr (sizeof...(RowLengths) != Rows) {
      static_assert(braced_rows_fit<shape<Rows, Cols>, braced_rows<RowLengths...>>,
                    "matrix<T, Rows, Cols>{...} requires exactly Rows braced rows");
    } else {
      static_assert(braced_rows_fit<shape<Rows, Cols>, braced_rows<RowLengths...>>,
                    "matrix<T, Rows, Cols>{...} requires exactly Cols values in every row");
    }
    if constexpr (braced_rows_fit<shape<Rows, Cols>, braced_rows<RowLengths...>>) {
      // An array of the rows, not a fold expression: Clang limits folds to 256 operands.
      const T* const rows_given[] = {init_rows...};
      for (std::size_t i = 0; i < Rows; ++i)
        for (std::size_t j = 0; j < Cols; ++j) elems[i * Cols + j] = rows_given[i][j];
    }
  }

  /// Element (i, j). Out of range: a compile error in constant evaluation, an assertion at run time.
  constexpr T& operator()(std::size_t i, std::size_t j) & noexcept {
    detail::check_index<Rows, Cols>(i, j);
    return elems[i * Cols + j];
  }
  /// Element (i, j), read-only.
  constexpr const T& operator()(std::size_t i, std::size_t j) const& noexcept {
    detail::check_index<Rows, Cols>(i, j);
    return elems[i * Cols + j];
  }
  /// Element (i, j) of a temporary, read-only: a temporary matrix (`row(m, i)`, `t[b]`, what
  /// `matmul` returns) is a copy, so writing to it would change nothing. Write `m(i, j)`.
  constexpr const T& operator()(std::size_t i, std::size_t j) && noexcept {  // read-only: a temporary is a copy
    detail::check_index<Rows, Cols>(i, j);
    return elems[i * Cols + j];
  }

  /// Pointer to the first of the `size` contiguous elements.
  constexpr T* data() noexcept { return elems; }
  constexpr const T* data() const noexcept { return elems; }
  /// Iteration over all elements in row-major order.
  constexpr T* begin() noexcept { return elems; }
  constexpr T* end() noexcept { return elems + size; }
  constexpr const T* begin() const noexcept { return elems; }
  constexpr const T* end() const noexcept { return elems + size; }

  /// Element-wise equality.
  friend constexpr bool operator==(const matrix&, const matrix&) = default;
};

/// `matrix m{{1.0, 2.0}, {3.0, 4.0}}` deduces `matrix<double, 2, 2>`.
template <class T, std::size_t Cols, class... U>
requires(std::is_same_v<T, U>&&...) matrix(const T (&first)[Cols], const U (&... rest)[Cols])
->matrix<T, 1 + sizeof...(U), Cols>;

/// A matrix with every element equal to `value`.
template <class T, std::size_t Rows, std::size_t Cols>
constexpr matrix<T, Rows, Cols> full(T value) noexcept {
  matrix<T, Rows, Cols> m;
  for (auto& x : m.elems) x = value;
  return m;
}

/// All zeros.
template <class T, std::size_t Rows, std::size_t Cols>
constexpr matrix<T, Rows, Cols> zeros() noexcept {
  return matrix<T, Rows, Cols>{};
}

/// All ones.
template <class T, std::size_t Rows, std::size_t Cols>
constexpr matrix<T, Rows, Cols> ones() noexcept {
  return full<T, Rows, Cols>(T{1});
}

/// The N x N identity.
template <class T, std::size_t N>
constexpr matrix<T, N, N> identity() noexcept {
  matrix<T, N, N> m;
  for (std::size_t i = 0; i < N; ++i) m.elems[i * N + i] = T{1};
  return m;
}

/// Row i as a 1 x Cols matrix: a copy, not a view (write `m(i, j)` to change m).
template <class T, std::size_t Rows, std::size_t Cols>
constexpr matrix<T, 1, Cols> row(const matrix<T, Rows, Cols>& m, std::size_t i) noexcept {
  detail::check_index<Rows>(i);
  matrix<T, 1, Cols> r;
  for (std::size_t j = 0; j < Cols; ++j) r.elems[j] = m.elems[i * Cols + j];
  return r;
}

/// Column j as a Rows x 1 matrix: a copy, not a view.
template <class T, std::size_t Rows, std::size_t Cols>
constexpr matrix<T, Rows, 1> col(const matrix<T, Rows, Cols>& m, std::size_t j) noexcept {
  detail::check_index<Cols>(j);
  matrix<T, Rows, 1> c;
  for (std::size_t i = 0; i < Rows; ++i) c.elems[i] = m.elems[i * Cols + j];
  return c;
}

/// The transpose: (Rows x Cols) -> (Cols x Rows).
template <class T, std::size_t Rows, std::size_t Cols>
constexpr matrix<T, Cols, Rows> transpose(const matrix<T, Rows, Cols>& m) noexcept {
  matrix<T, Cols, Rows> t;
  for (std::size_t i = 0; i < Rows; ++i)
    for (std::size_t j = 0; j < Cols; ++j) t.elems[j * Rows + i] = m.elems[i * Cols + j];
  return t;
}

/// Sum of each row, as a Rows x 1 column (PyTorch's `m.sum(dim=-1, keepdim=True)`).
template <class T, std::size_t Rows, std::size_t Cols>
constexpr matrix<T, Rows, 1> sum(const matrix<T, Rows, Cols>& m) noexcept {
  matrix<T, Rows, 1> s;
  for (std::size_t i = 0; i < Rows; ++i) {
    T acc{};
    for (std::size_t j = 0; j < Cols; ++j) acc += m.elems[i * Cols + j];
    s.elems[i] = acc;
  }
  return s;
}

/// Maximum of each row, as a Rows x 1 column (NaN-propagating, as `torch.max(dim=-1)`).
template <class T, std::size_t Rows, std::size_t Cols>
constexpr matrix<T, Rows, 1> max(const matrix<T, Rows, Cols>& m) noexcept {
  matrix<T, Rows, 1> s;
  for (std::size_t i = 0; i < Rows; ++i) {
    T best = m.elems[i * Cols];
    for (std::size_t j = 1; j < Cols; ++j) {
      const T x = m.elems[i * Cols + j];
      if (x > best || x != x) best = x;
      if (best != best) break;
    }
    s.elems[i] = best;
  }
  return s;
}

}  // namespace static_attention

#include <static_attention/core/elementwise.hpp>
