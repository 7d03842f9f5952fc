// SPDX-License-Identifier: BSL-1.0
// softmax over the last dimension: the stable form the library uses, and the chapter's naive one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <static_attention/core/detail/kernel_simd.hpp>
#include <static_attention/core/math.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/shape_rules.hpp>
#include <static_attention/core/tensor.hpp>

namespace static_attention {

namespace detail {

template <class M>
constexpr void check_softmax_element() noexcept {
  static_assert(is_floating_element<value_type_t<M>>,
                "softmax(m) requires a floating-point element type (float or double)");
}

// x != x at run time; in software floating point (no FPU) by its bits, since a compare is a
// call there.
template <class T>
inline bool nan_at_run_time(T x) noexcept {
#if defined(__arm__) && !defined(__ARM_FP)
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr U infinity = __builtin_bit_cast(U, std::numeric_limits<T>::infinity()) << 1;
  return __builtin_bit_cast(U, x) << 1 > infinity;  // no call to math::is_nan: another region
#else
  return x != x;
#endif
}

// max of x[0, len) (-inf when empty) at run time, and whether one of them is NaN: whole native
// vectors, then the rest one by one. The maximum of a set is one value whatever the order
// (only the sign of a zero maximum may differ, and x - (+0) and x - (-0) have one exp).
template <class T>
inline T row_max_of(const T* x, std::size_t len, bool& has_nan) noexcept {
  T m = -std::numeric_limits<T>::infinity();
  std::size_t j = 0;
#if defined(__GNUC__)
  constexpr std::size_t W = simd::native_lanes<T>;
  if constexpr (W >= simd::min_lanes<T>) {
    using V = simd::vec<T, W>;
    const std::size_t whole = len / W * W;
    if (whole > 0) {
      V mv = V{} + m;
      auto nan_lanes = mv != mv;
      for (; j < whole; j += W) {
        V v;
        __builtin_memcpy(&v, x + j, sizeof(V));
        nan_lanes |= v != v;
        mv = v > mv ? v : mv;
      }
      for (std::size_t l = 0; l < W; ++l) {
        has_nan |= nan_lanes[l] != 0;
        m = mv[l] > m ? mv[l] : m;
      }
    }
  }
#endif
  for (; j < len; ++j) {
    has_nan |= nan_at_run_time(x[j]);
    m = x[j] > m ? x[j] : m;
  }
  return m;
}

// Row i's softmax from its exponentials p[0, len) and their sum, into y[0, cols) (y >= p).
template <class T>
inline void finish_row(const T* p, T* y, std::size_t len, std::size_t cols, T total) noexcept {
  const bool nan = nan_at_run_time(total);
  if (nan || total == T{0}) {
    for (std::size_t j = 0; j < cols; ++j) y[j] = nan ? std::numeric_limits<T>::quiet_NaN() : T{0};
    return;
  }
  if (y == p || static_cast<std::size_t>(y - p) >= len) {
    for (std::size_t j = 0; j < len; ++j) y[j] = p[j] / total;
  } else {  // y overlaps p from above: last j first
    for (std::size_t j = len; j-- > 0;) y[j] = p[j] / total;
  }
  for (std::size_t j = len; j < cols; ++j) y[j] = T{0};
}

// Stable softmax of `rows` contiguous rows of `cols` values. Rows are written only from their
// own inputs, so in and out may be the same storage. With Causal, row i is the softmax of its
// first i + 1 values and the rest count as masked (-inf): they become 0 (NaN in a NaN row).
//
// Constant evaluation runs plain loops. At run time every loop vectorises and exp is called
// once, on all rows, through the vectorised array overload, which gives the scalar exp's bits:
// so both worlds compute x - max, exp, a sum in order and a division, with the same bits. For
// that one call the rows' unmasked values are first packed to the front of out (row i at
// i (i + 1) / 2 when Causal; in place otherwise) and moved back afterwards, last row first; a
// packed row never overtakes the unread part of its source, so no scratch buffer is needed.
// Where there are no vectors (softmax_by_rows) the run time takes a row at a time instead.
// The constant evaluator's softmax of each row: the reference every run-time path matches.
template <class T, bool Causal = false>
constexpr void softmax_rows_constant(const T* in, T* out, std::size_t rows, std::size_t cols) noexcept {
  constexpr T inf = std::numeric_limits<T>::infinity();
  constexpr T nan = std::numeric_limits<T>::quiet_NaN();
  for (std::size_t i = 0; i < rows; ++i) {
    const std::size_t len = Causal && i + 1 < cols ? i + 1 : cols;
    const T* x = in + i * cols;
    T* y = out + i * cols;
    T row_max = -inf;
    bool has_nan = false;
    for (std::size_t j = 0; j < len; ++j) {
      has_nan = has_nan || x[j] != x[j];
      if (x[j] > row_max) row_max = x[j];
    }
    // +inf or NaN in a row makes PyTorch's row NaN; say so without computing inf - inf,
    // which the constant evaluator rejects.
    if (has_nan || row_max == inf) {
      for (std::size_t j = 0; j < cols; ++j) y[j] = nan;
      continue;
    }
    // A fully masked row attends to nothing: zeros, where PyTorch would give NaN.
    if (row_max == -inf) {
      for (std::size_t j = 0; j < cols; ++j) y[j] = T{0};
      continue;
    }
    T total{};
    for (std::size_t j = 0; j < len; ++j) {
      // x - max can overflow to -inf ({FLT_MAX, -FLT_MAX}), which GCC's constant evaluator
      // refuses and Clang's accepts. Halves cannot overflow, and when x - max < -max_finite / 2
      // its exp is exactly +0 either way, as the run-time exp(-inf) or exp(-huge) gives: so both
      // compilers accept every finite row, with the run time's bits. (exp(-inf) is exactly 0.)
      const bool vanishes = x[j] / 2 - row_max / 2 < -std::numeric_limits<T>::max() / 4;
      const T e = vanishes ? T{0} : static_attention::exp(x[j] - row_max);
      y[j] = e;
      total += e;
    }
    for (std::size_t j = 0; j < len; ++j) y[j] /= total;  // total >= 1: the max contributes 1
    for (std::size_t j = len; j < cols; ++j) y[j] = T{0};
  }
}

// Where there are no vectors (the Cortex-M but Helium's), the run time takes a row at a time:
// packing the rows for one exp call buys nothing there, and x - max, exp and the sum fuse into
// one loop.
template <class T>
inline constexpr bool softmax_by_rows =
#if defined(__ARM_FEATURE_MVE)
    false;
#else
    simd::native_lanes<T> < simd::min_lanes<T>;
#endif

// One row at run time, where softmax_by_rows: y[0, len) the softmax of x[0, len), y[len, cols)
// zeros (NaN in a NaN row); y is x or does not overlap it. softmax_rows_constant's steps and
// bits: the max, each x - max's exp with their sum in order (one loop, math::exp_below_max),
// the divisions. A NaN is found where it costs nothing per value: it is never the max (compares
// skip it), and its exp makes the sum NaN; a sum that is not NaN is at least 1 (the max's own
// term), so it needs no other check.
template <class T>
inline void softmax_row_by_row(const T* x, T* y, std::size_t len, std::size_t cols) noexcept {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr U infinity = __builtin_bit_cast(U, std::numeric_limits<T>::infinity()) << 1;
  T top = -std::numeric_limits<T>::infinity();
#if defined(__arm__) && !defined(__ARM_FP)
  // Software floating point, where a compare is a call: the max by integer keys, the values'
  // bits with a negative one's magnitude bits flipped. Ordered as the values, but -0 below +0
  // (only a zero maximum's sign may differ from the compares', and x - (+0), x - (-0) have one
  // exp); a NaN with the sign bit clear above +inf (the max: a NaN row), one with it set below
  // -inf (never the max).
  using S = std::make_signed_t<U>;
  constexpr unsigned sign_shift = sizeof(T) * 8 - 1;
  constexpr U magnitude_bits = ~U{0} >> 1;
  auto top_key = static_cast<S>(__builtin_bit_cast(U, top) ^ magnitude_bits);
  for (std::size_t j = 0; j < len; ++j) {
    const U b = __builtin_bit_cast(U, x[j]);
    const auto key = static_cast<S>(b ^ (static_cast<U>(static_cast<S>(b) >> sign_shift) & magnitude_bits));
    if (key > top_key) {
      top_key = key;
      top = x[j];
    }
  }
#else
  for (std::size_t j = 0; j < len; ++j) top = x[j] > top ? x[j] : top;
#endif
  // By bits (no compare: a call in software floating point): the max is +-inf, or NaN (above).
  const U top_bits = __builtin_bit_cast(U, top);
  bool nan_row = top_bits << 1 >= infinity && top_bits >> (sizeof(T) * 8 - 1) == 0;  // +inf or NaN
  if (!nan_row && top_bits << 1 == infinity) {  // -inf: every value masked (zeros), or NaN
    for (std::size_t j = 0; j < len; ++j) nan_row |= nan_at_run_time(x[j]);
    if (!nan_row) {
      for (std::size_t j = 0; j < cols; ++j) y[j] = T{0};
      return;
    }
  }
  if (!nan_row) {
    const T total = math::exp_below_max(x, top, y, len);
    if (!nan_at_run_time(total)) {
      for (std::size_t j = 0; j < len; ++j) y[j] /= total;
      for (std::size_t j = len; j < cols; ++j) y[j] = T{0};
      return;
    }
  }
  for (std::size_t j = 0; j < cols; ++j) y[j] = std::numeric_limits<T>::quiet_NaN();
}

// Run time, step 1: each row's x - max packed to the front of out (NaN or -inf marking a row
// with NaN / +inf, or fully masked), then exp over the packed values in whole vectors; out may
// be written up to `room` >= rows cols elements (scratch past the rows). Returns the count packed.
template <class T, bool Causal = false>
std::size_t softmax_rows_exp(const T* in, T* out, std::size_t rows, std::size_t cols, std::size_t room) noexcept {
  constexpr T inf = std::numeric_limits<T>::infinity();
  constexpr T nan = std::numeric_limits<T>::quiet_NaN();
  if (in != out)
    for (std::size_t k = 0; k < rows * cols; ++k) out[k] = in[k];
  std::size_t packed = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    const std::size_t len = Causal && i + 1 < cols ? i + 1 : cols;
    const T* x = out + i * cols;
    T* p = out + packed;  // p <= x: p[j] is written after x[j] is read
    bool has_nan = false;
    const T row_max = row_max_of(x, len, has_nan);
    if (has_nan || row_max == inf) {
      for (std::size_t j = 0; j < len; ++j) p[j] = nan;  // exp(NaN) = NaN: a NaN total marks the row
    } else if (row_max == -inf) {
      for (std::size_t j = 0; j < len; ++j) p[j] = -inf;  // exp(-inf) = 0: a zero total marks the row
    } else {
      for (std::size_t j = 0; j < len; ++j) p[j] = x[j] - row_max;
    }
    packed += len;
  }
  // The array exp runs whole vectors, then a slow scalar tail. Where out has room, the call
  // covers whole vectors past the packed values (scores the rows below overwrite later);
  // otherwise the last partial vector goes through a zero-padded copy.
  // Without vectors (Cortex-M but Helium) the exp is one value at a time: no padding.
#if defined(__ARM_FEATURE_MVE)
  constexpr std::size_t lanes = (simd::native_bytes > 16 ? simd::native_bytes : 16) / sizeof(T);
#else
  constexpr std::size_t lanes =
      simd::native_bytes == 0 ? 1 : (simd::native_bytes > 16 ? simd::native_bytes : 16) / sizeof(T);
#endif
  const std::size_t rounded = (packed + lanes - 1) / lanes * lanes;
  const std::size_t whole = rounded <= room ? rounded : packed / lanes * lanes;
  if (whole > 0) static_attention::exp(std::span<const T>{out, whole}, std::span<T>{out, whole});
  if (whole < packed) {
    T tail[lanes] = {};
    for (std::size_t k = whole; k < packed; ++k) tail[k - whole] = out[k];
    static_attention::exp(std::span<const T>{tail, lanes}, std::span<T>{tail, lanes});
    for (std::size_t k = whole; k < packed; ++k) out[k] = tail[k - whole];
  }
  return packed;
}

// Rows shorter than a vector, all packed values in one small block: their divisions as one
// pass of whole vectors (each value over its row's sum), where a row at a time is one scalar
// division a value (the chapter's 6 x 6 scores: 36 divisions in 3 vectors with AVX-512). The
// same sums in the same order, the same divisions: the same bits. Out may be written up to
// `room` >= packed elements. False (nothing written) where this does not apply.
inline constexpr std::size_t one_pass_division = 64;

template <class T, bool Causal>
bool normalise_short_rows(T* out, std::size_t rows, std::size_t cols, std::size_t packed, std::size_t room) noexcept {
#if defined(__GNUC__)
  constexpr std::size_t W = simd::native_lanes<T>;
  if constexpr (W >= simd::min_lanes<T>) {
    // By the shape, not by packed: a compiler then sees the bounds on every path it keeps.
    if (cols >= W || rows * cols > one_pass_division || rows * cols < W) return false;
    using V = simd::vec<T, W>;
    T divisor[one_pass_division];
    T total[one_pass_division];
    bool plain = true;  // every sum a number above zero
    for (std::size_t i = 0, at = 0; i < rows; ++i) {
      const std::size_t len = Causal && i + 1 < cols ? i + 1 : cols;
      T t{};
      for (std::size_t j = 0; j < len; ++j) t += out[at + j];
      const bool fine = !nan_at_run_time(t) && t != T{0};
      plain = plain && fine;
      total[i] = t;
      for (std::size_t j = 0; j < len; ++j) divisor[at + j] = fine ? t : T{1};
      at += len;
    }
    const std::size_t rounded = (packed + W - 1) / W * W;
    const std::size_t whole = rounded <= room ? rounded : packed / W * W;
    for (std::size_t k = packed; k < whole; ++k) divisor[k] = T{1};  // scratch past the values
    std::size_t k = 0;
    for (; k + W <= whole; k += W) {
      V a, b;
      __builtin_memcpy(&a, out + k, sizeof(V));
      __builtin_memcpy(&b, divisor + k, sizeof(V));
      a = a / b;
      __builtin_memcpy(out + k, &a, sizeof(V));
    }
    for (; k < packed; ++k) out[k] /= divisor[k];
    if (!Causal && plain) return true;  // every row already in its place
    // Each row from its packed place to its own, last row first (a row's place never covers
    // the packed values of the rows above), the masked rest zero.
    for (std::size_t i = rows; i-- > 0;) {
      const std::size_t len = Causal && i + 1 < cols ? i + 1 : cols;
      const T* p = out + (packed -= len);
      T* y = out + i * cols;
      if (nan_at_run_time(total[i]) || total[i] == T{0}) {
        finish_row(p, y, len, cols, total[i]);  // a row of NaN or of zeros: no division
        continue;
      }
      if (y != p)
        for (std::size_t j = len; j-- > 0;) y[j] = p[j];
      for (std::size_t j = len; j < cols; ++j) y[j] = T{0};
    }
    return true;
  }
#endif
  (void)out, (void)rows, (void)cols, (void)packed, (void)room;
  return false;
}

// Run time, step 2: each row's sum in order and its place in out, last row first.
template <class T, bool Causal = false>
void softmax_rows_normalise(T* out, std::size_t rows, std::size_t cols, std::size_t packed, std::size_t room) noexcept {
  if (normalise_short_rows<T, Causal>(out, rows, cols, packed, room)) return;
  // Last row first (a row's final place never covers the packed values of the rows above).
  // Four rows of one length have their sums taken together: four independent chains of adds,
  // each in order j = 0, 1, ...
  for (std::size_t i = rows; i > 0;) {
    const std::size_t len = Causal && i < cols ? i : cols;
    const std::size_t first_len = Causal && i - 3 < cols ? i - 3 : cols;
    if (i >= 4 && first_len == len) {
      const T* p3 = out + (packed -= len);
      const T* p2 = out + (packed -= len);
      const T* p1 = out + (packed -= len);
      const T* p0 = out + (packed -= len);
      T t0{}, t1{}, t2{}, t3{};
      for (std::size_t j = 0; j < len; ++j) {
        t0 += p0[j];
        t1 += p1[j];
        t2 += p2[j];
        t3 += p3[j];
      }
      finish_row(p3, out + (i - 1) * cols, len, cols, t3);
      finish_row(p2, out + (i - 2) * cols, len, cols, t2);
      finish_row(p1, out + (i - 3) * cols, len, cols, t1);
      finish_row(p0, out + (i - 4) * cols, len, cols, t0);
      i -= 4;
    } else {
      const T* p = out + (packed -= len);
      T total{};
      for (std::size_t j = 0; j < len; ++j) total += p[j];
      finish_row(p, out + (i - 1) * cols, len, cols, total);
      i -= 1;
    }
  }
}

template <class T, bool Causal = false>
constexpr void softmax_rows(const T* in, T* out, std::size_t rows, std::size_t cols) noexcept {
  if (std::is_constant_evaluated()) {
    softmax_rows_constant<T, Causal>(in, out, rows, cols);
    return;
  }
  if constexpr (softmax_by_rows<T>) {
    for (std::size_t i = 0; i < rows; ++i)
      softmax_row_by_row(in + i * cols, out + i * cols, Causal && i + 1 < cols ? i + 1 : cols, cols);
    return;
  }
  softmax_rows_normalise<T, Causal>(out, rows, cols, softmax_rows_exp<T, Causal>(in, out, rows, cols, rows * cols),
                                    rows * cols);
}

/// softmax_rows in place at run time, where out has room for `room` >= rows cols elements: the
/// exp then runs whole vectors over the scratch past the rows (one call, no padded copy).
template <class T, bool Causal = false>
void softmax_rows_in_room(T* out, std::size_t rows, std::size_t cols, std::size_t room) noexcept {
  softmax_rows_normalise<T, Causal>(out, rows, cols, softmax_rows_exp<T, Causal>(out, out, rows, cols, room), room);
}

}  // namespace detail

/// Softmax over the last dimension (each row of a matrix, each row of every batch item),
/// as `torch.softmax(m, dim=-1)`. Numerically stable: the row maximum is subtracted before
/// exp, so scores of +-1e4 neither overflow nor give NaN. Entries at -inf get exactly 0.
/// A row that is entirely -inf gives all zeros (PyTorch gives NaN): a fully masked query
/// attends to nothing. A row holding NaN or +inf gives NaN, as in PyTorch.
template <dense M>
constexpr M softmax(const M& m) noexcept {
  detail::check_softmax_element<M>();
  M out;
  if constexpr (is_floating_element<value_type_t<M>>)
    detail::softmax_rows(m.elems, out.elems, M::size / cols_v<M>, cols_v<M>);
  return out;
}

/// The chapter's first softmax: exp(x) / sum(exp(x)) with no max subtraction. It overflows:
/// once exp(x) is +inf (x > 88.72 for float, x > 709.78 for double) the row becomes
/// inf / inf, NaN at run time and not a constant expression at compile time. Use softmax().
template <dense M>
constexpr M softmax_naive(const M& m) noexcept {
  detail::check_softmax_element<M>();
  M out;
  if constexpr (is_floating_element<value_type_t<M>>) {
    constexpr std::size_t cols = cols_v<M>;
    for (std::size_t i = 0; i < M::size / cols; ++i) {
      value_type_t<M> total{};
      for (std::size_t j = 0; j < cols; ++j) total += static_attention::exp(m.elems[i * cols + j]);
      for (std::size_t j = 0; j < cols; ++j)
        out.elems[i * cols + j] = static_attention::exp(m.elems[i * cols + j]) / total;
    }
  }
  return out;
}

}  // namespace static_attention
