// SPDX-License-Identifier: BSL-1.0
// matmul (plain, batched, batch x matrix) and transpose: run time gives the constant
// evaluator's bits, on shapes with vector tails (1, 3, 5, 17, 33, 65) and the chapter's 6x3.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <static_attention/core/matmul.hpp>

#include "same_bits_support.hpp"

namespace sa = static_attention;
using same_bits::inputs;
using same_bits::launder;

namespace {

template <class T, std::size_t R, std::size_t K, std::size_t C>
void check_matmul() {
  static constexpr auto a = inputs<sa::matrix<T, R, K>>(R * 100 + K);
  static constexpr auto b = inputs<sa::matrix<T, K, C>>(K * 100 + C);
  static constexpr auto expected = sa::matmul(a, b);
  static constexpr auto expected_t = sa::transpose(a);
  INFO(R << "x" << K << " . " << K << "x" << C);
  const auto r1 = sa::matmul(launder(a), launder(b));
  const auto r2 = sa::matmul(a, b);
  SAME_BITS_CHECK(expected, r1, r2);
  SAME_BITS_CHECK(expected_t, sa::transpose(launder(a)), sa::transpose(a));
}

// a . b^T (Q K^T), the kernel attention uses: b^T packed a panel at a time.
template <class T, std::size_t R, std::size_t K, std::size_t C>
void check_abt() {
  static constexpr auto a = inputs<sa::matrix<T, R, K>>(R * 10 + K);
  static constexpr auto b = inputs<sa::matrix<T, C, K>>(C * 10 + K);
  static constexpr auto expected = [] {
    sa::matrix<T, R, C> out;
    sa::detail::matmul_abt_kernel<T, R, K, C>(a.elems, b.elems, out.elems);
    return out;
  }();
  INFO(R << "x" << K << " . (" << C << "x" << K << ")^T");
  const auto la = launder(a);
  const auto lb = launder(b);
  sa::matrix<T, R, C> r1;
  sa::detail::matmul_abt_kernel<T, R, K, C>(la.elems, lb.elems, r1.elems);
  SAME_BITS_CHECK(expected, r1, sa::matmul(a, sa::transpose(b)));
}

template <class T, std::size_t B, std::size_t N, std::size_t K, std::size_t C>
void check_batched() {
  static constexpr auto a = inputs<sa::tensor<T, B, N, K>>(7);
  static constexpr auto b = inputs<sa::tensor<T, B, K, C>>(8);
  static constexpr auto w = inputs<sa::matrix<T, K, C>>(9);
  static constexpr auto expected = sa::matmul(a, b);
  static constexpr auto expected_w = sa::matmul(a, w);
  static constexpr auto expected_t = sa::transpose(a);
  SAME_BITS_CHECK(expected, sa::matmul(launder(a), launder(b)), sa::matmul(a, b));
  SAME_BITS_CHECK(expected_w, sa::matmul(launder(a), launder(w)), sa::matmul(a, w));
  SAME_BITS_CHECK(expected_t, sa::transpose(launder(a)), sa::transpose(a));
}

}  // namespace

TEST_CASE_TEMPLATE("matmul: square shapes with tails, at both times", T, float, double) {
  check_matmul<T, 1, 1, 1>();
  check_matmul<T, 3, 3, 3>();
  check_matmul<T, 5, 5, 5>();
  check_matmul<T, 17, 17, 17>();
  check_matmul<T, 33, 33, 33>();
  check_matmul<T, 65, 9, 65>();
}

TEST_CASE_TEMPLATE("matmul: mixed shapes and the chapter's, at both times", T, float, double) {
  check_matmul<T, 6, 3, 6>();  // x x^T's shape
  check_matmul<T, 6, 6, 3>();  // weights . x
  check_matmul<T, 6, 3, 2>();  // x W_query
  check_matmul<T, 65, 17, 33>();
  check_matmul<T, 3, 65, 5>();
  check_matmul<T, 17, 1, 65>();
  check_matmul<T, 33, 5, 3>();
  check_matmul<T, 1, 65, 17>();
  check_matmul<T, 5, 33, 1>();
}

// Outputs narrower than a vector: several rows per vector (4x4 in 8 or 16 lanes, 6x2 in 4),
// with partial last vectors, and narrow column tails after whole vectors (6 = 4 + 2).
TEST_CASE_TEMPLATE("matmul: narrow outputs, rows packed into vectors, at both times", T, float, double) {
  check_matmul<T, 4, 4, 4>();
  check_matmul<T, 8, 8, 4>();
  check_matmul<T, 7, 5, 2>();
  check_matmul<T, 9, 3, 1>();
  check_matmul<T, 5, 4, 3>();
  check_matmul<T, 13, 7, 6>();
  check_matmul<T, 3, 9, 8>();
  check_abt<T, 6, 2, 6>();
  check_abt<T, 6, 1, 6>();
  check_abt<T, 5, 3, 2>();
  check_abt<T, 17, 4, 5>();
  check_abt<T, 33, 65, 9>();
}

// Panels of b beyond L1 are packed on the stack in blocks of k, continuing the sums in out:
// K past one block for SSE2 (1025: 8 columns of float), AVX2 (513) and AVX-512 (129), with
// a last partial k block and columns past the last whole panel.
TEST_CASE_TEMPLATE("matmul: packed panels of b, blocked over k, at both times", T, float, double) {
  check_matmul<T, 8, 1025, 9>();
  check_matmul<T, 9, 513, 17>();
  check_matmul<T, 10, 129, 67>();
}

// One to four rows times a b beyond 64 KiB (decoding): b streamed a few rows at a time in column
// blocks, with k and column tails.
TEST_CASE_TEMPLATE("matmul: few rows streaming a large b, at both times", T, float, double) {
  check_matmul<T, 1, 129, 130>();
  check_matmul<T, 3, 133, 131>();
  check_matmul<T, 4, 70, 260>();
}

// a and b both beyond L1 and b left unpacked: blocks of six rows outer, with a last block of one.
TEST_CASE_TEMPLATE("matmul: blocks of rows outer, at both times", T, float, double) { check_matmul<T, 13, 700, 13>(); }

TEST_CASE_TEMPLATE("matmul: batched and broadcast, at both times", T, float, double) {
  check_batched<T, 2, 6, 3, 2>();
  check_batched<T, 3, 5, 17, 33>();
  check_batched<T, 1, 17, 33, 5>();
}

// Inputs beyond the fast arithmetic of the fused builds (kernels_fuse): subnormal and tiny
// products, exact cancellations to zero, signed zeros, sums near the largest value, infinite
// inputs, and random exponents over most of the range. The constant evaluator takes
// its slow exact path there (fma_exact), the CPU its FMA instruction: the same bits. No input
// makes a NaN (Clang does not evaluate arithmetic that makes one).
namespace {

// m 2^e, m in [1, 2) from the LCG, e in [lo, hi], the sign from the LCG; every eighth a zero
// of either sign.
template <class M>
constexpr M wide_inputs(std::uint32_t seed, int lo, int hi) {
  using T = typename M::value_type;
  M m;
  std::uint32_t s = seed * 2654435761U + 12345U;
  for (std::size_t k = 0; k < M::size; ++k) {
    s = s * 1664525U + 1013904223U;
    T v = T{1} + static_cast<T>(s >> 8) / static_cast<T>(1 << 24);
    const int e = lo + static_cast<int>((s >> 3) % static_cast<std::uint32_t>(hi - lo + 1));
    // 2^e (a normal number for every e used here) from its bits.
    if constexpr (sizeof(T) == 8)
      v *= std::bit_cast<T>(static_cast<std::uint64_t>(e + 1023) << 52);
    else
      v *= std::bit_cast<T>(static_cast<std::uint32_t>(e + 127) << 23);
    if ((s & 1U) != 0) v = -v;
    if ((s & 0x70U) == 0) v = (s & 1U) != 0 ? -T{0} : T{0};
    m.elems[k] = v;
  }
  return m;
}

template <class T, std::size_t R, std::size_t K, std::size_t C, int Lo, int Hi, std::uint32_t Seed>
void check_wide_matmul() {
  static constexpr auto a = wide_inputs<sa::matrix<T, R, K>>(Seed, Lo, Hi);
  static constexpr auto b = wide_inputs<sa::matrix<T, K, C>>(Seed + 1, Lo, Hi);
  static constexpr auto expected = sa::matmul(a, b);
  INFO(R << "x" << K << " . " << K << "x" << C << ", exponents " << Lo << " to " << Hi);
  SAME_BITS_CHECK(expected, sa::matmul(launder(a), launder(b)), sa::matmul(a, b));
}

// b's columns in pairs j, j + 1 = -j: the sums of a row of a with them cancel to exact zeros
// and to tiny remainders (after rounding differences), the cases where fusion matters most.
template <class T, std::size_t R, std::size_t K, int Lo, int Hi>
void check_cancelling() {
  static constexpr auto a = wide_inputs<sa::matrix<T, R, K>>(11, Lo, Hi);
  static constexpr auto b = [] {
    auto m = wide_inputs<sa::matrix<T, K, 4>>(12, Lo, Hi);
    for (std::size_t k = 0; k < K; ++k) {
      m.elems[k * 4 + 1] = -m.elems[k * 4];
      m.elems[k * 4 + 3] = (k % 2 == 0 ? T{1} : -T{1}) * m.elems[k * 4 + 2];
    }
    return m;
  }();
  static constexpr auto expected = sa::matmul(a, b);
  SAME_BITS_CHECK(expected, sa::matmul(launder(a), launder(b)), sa::matmul(a, b));
}

template <class T>
void check_special() {
  constexpr T inf = std::numeric_limits<T>::infinity();
  constexpr T big = std::numeric_limits<T>::max() / 16;  // GCC does not evaluate an overflow
  constexpr T tiny = std::numeric_limits<T>::denorm_min();
  constexpr T small = std::numeric_limits<T>::min();  // the smallest normal
  // Rows of a times b's columns: infinities with positive partners only, sums near the largest
  // float, subnormal inputs and results, signed zeros.
  static constexpr sa::matrix<T, 4, 3> a{
      {inf, T{1}, T{2}}, {big, big, -T{0}}, {tiny, small, T{3}}, {-T{0}, -T{0}, small}};
  static constexpr sa::matrix<T, 3, 5> b{{T{1}, T{2}, T{0.25}, T{0.5}, small},
                                         {T{4}, T{8}, T{0}, small, T{0.75}},
                                         {T{0.5}, small, -T{0}, T{1} + std::numeric_limits<T>::epsilon(), small}};
  static constexpr auto expected = sa::matmul(a, b);
  SAME_BITS_CHECK(expected, sa::matmul(launder(a), launder(b)), sa::matmul(a, b));
}

}  // namespace

TEST_CASE_TEMPLATE("matmul: wide exponents, subnormals, cancellation, infinities, at both times", T, float, double) {
  constexpr bool is_float = std::is_same_v<T, float>;
  // Moderate, wide, tiny (subnormal products and sums) and huge (beyond the fast paths)
  // exponents.
  check_wide_matmul<T, 5, 9, 7, -20, 20, 1>();
  check_wide_matmul<T, 17, 33, 9, (is_float ? -60 : -500), (is_float ? 60 : 500), 2>();
  check_wide_matmul<T, 6, 70, 5, (is_float ? -80 : -540), (is_float ? -50 : -500), 3>();
  check_wide_matmul<T, 3, 5, 9, (is_float ? 40 : 480), (is_float ? 60 : 505), 4>();
  check_cancelling<T, 9, 17, -8, 8>();
  check_cancelling<T, 5, 65, (is_float ? -75 : -530), (is_float ? -60 : -500)>();
  check_special<T>();
}
