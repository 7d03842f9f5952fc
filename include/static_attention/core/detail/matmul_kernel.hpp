// SPDX-License-Identifier: BSL-1.0
// The matmul kernels on raw row-major storage: one loop nest for the constant evaluator, one
// register-blocked kernel for the CPU (kernel_simd.hpp). Both add the K products of each
// output element in the same order, k = 0, 1, ..., K-1, with the same arithmetic: fused
// multiply-adds where the build's kernels fuse (kernels_fuse<T>, fp_contract.hpp), else each
// product rounded on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include <static_attention/core/detail/exact_fma.hpp>
#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/detail/kernel_simd.hpp>

namespace static_attention::detail {

namespace ce {
// Constant-evaluation kernels. Their cost is what limits the shapes a static_assert accepts:
// Clang counts one step per statement evaluated (-fconstexpr-steps, default 2^20); GCC counts
// one operation per expression node evaluated (-fconstexpr-ops-limit, default 2^25) and the
// iterations of any one loop (-fconstexpr-loop-limit, default 2^18).
//
// A dot product is therefore one fold expression per chunk of up to 64 products, adding them
// left to right (the loop's order), with the strides as template arguments so every index is
// a constant: about 1/64 step per product on Clang instead of 1, and about 20 operations per
// product on GCC instead of about 38 (measured with GCC 12; see docs/performance.md).
//
// Three arithmetics, as the build's run-time kernels compute (fp_contract.hpp, kernels_fuse):
//   unfused:  acc + a_k b_k, the product rounded on its own;
//   fused:    acc = fma(a_k, b_k, acc) for every input: on GCC the library's fma_constexpr, a
//             call per product; on Clang the same emulation written into the fold (fused<F> of
//             exact_fma.hpp, no statement per product), with a call only for the rare inputs
//             it does not cover (fma_exact);
//   nested:   GCC only, when scan_safe says every product of the matrices folds: __builtin_fma
//             calls nested eight deep (about one operation per product more than unfused).
enum class arithmetic { unfused, fused, nested };

inline constexpr std::size_t fold_chunk = 64;

// acc + a[0] b[0] + a[SA] b[SB] + ... over the chunk, left to right.
template <class T, std::size_t SA, std::size_t SB, std::size_t... Ks>
constexpr T dot_chunk(T acc, const T* a, const T* b, std::index_sequence<Ks...>) noexcept {
  return (acc + ... + (a[Ks * SA] * b[Ks * SB]));
}

#if defined(__clang__)
// fma(a[k SA], b[k SB], acc) for each k in order, as fused<F> computes it.
template <std::size_t SA, std::size_t SB, std::size_t... Ks>
constexpr float fma_chunk(float acc, const float* a, const float* b, std::index_sequence<Ks...>) noexcept {
  float x = 0, y = 0;
  // s = RN(p + c), p = x y exact in double; a tie of float's rounding is resolved as
  // add_round_to_odd does (e: the error of s), inline; a sum below float's normal range calls
  // fused<float>.
  double p = 0, c = 0, s = 0, e = 0;
  ((x = a[Ks * SA], y = b[Ks * SB], p = static_cast<double>(x) * static_cast<double>(y), c = acc, s = p + c,
    acc = !(s >= 0x1p-126 || s <= -0x1p-126 || s == 0) ? fused<float>(x, y, acc).value
          : (__builtin_bit_cast(std::uint64_t, s) & 0x1fff'ffffU) != 0x1000'0000U
              ? static_cast<float>(s)
              : (e = (p - (s - (s - p))) + (c - (s - p)),
                 static_cast<float>(e == 0.0
                                        ? s
                                        : __builtin_bit_cast(double, (s > 0.0) == (e > 0.0)
                                                                         ? __builtin_bit_cast(std::uint64_t, s) + 1
                                                                         : __builtin_bit_cast(std::uint64_t, s) - 1)))),
   ...);
  return acc;
}

template <std::size_t SA, std::size_t SB, std::size_t... Ks>
constexpr double fma_chunk(double acc, const double* a, const double* b, std::index_sequence<Ks...>) noexcept {
  constexpr double splitter = fused<double>::splitter;
  double x = 0, y = 0, p = 0, ah = 0, bh = 0, pe = 0, th = 0, tl = 0, s = 0, se = 0;
  // fma_safe_double and fused<double>, written out: a call would cost a step per product.
  ((x = a[Ks * SA], y = b[Ks * SB], p = x * y,
    acc = x == 0 || y == 0 ? p + acc
          : !((x < 0 ? -x : x) <= 0x1p900 && (y < 0 ? -y : y) <= 0x1p900 && (p < 0 ? -p : p) >= 0x1p-900 &&
              (p < 0 ? -p : p) <= 0x1p1000 && (acc < 0 ? -acc : acc) <= 0x1p1000)
              ? fma_exact(x, y, acc)
              : (ah = splitter * x - (splitter * x - x), bh = splitter * y - (splitter * y - y),
                 pe = ((ah * bh - p) + ah * (y - bh) + (x - ah) * bh) + (x - ah) * (y - bh), th = acc + p,
                 tl = (acc - (th - (th - acc))) + (p - (th - acc)), s = tl + pe,
                 se = (tl - (s - (s - tl))) + (pe - (s - tl)),
                 th + (se == 0.0 || (__builtin_bit_cast(std::uint64_t, s) & 1U) != 0
                           ? s
                           : __builtin_bit_cast(double, (s > 0.0) == (se > 0.0)
                                                            ? __builtin_bit_cast(std::uint64_t, s) + 1
                                                            : __builtin_bit_cast(std::uint64_t, s) - 1)))),
   ...);
  return acc;
}
#else
template <std::size_t SA, std::size_t SB, class T, std::size_t... Ks>
constexpr T fma_chunk(T acc, const T* a, const T* b, std::index_sequence<Ks...>) noexcept {
  ((acc = fma_constexpr(a[Ks * SA], b[Ks * SB], acc)), ...);
  return acc;
}
#endif

#if defined(__GNUC__) && !defined(__clang__)
// Products 8 G .. 8 G + 7 for each G in Gs, then products First + Ks: __builtin_fma nested
// eight deep, the assignment once per eight products. Only where every call folds (scan_safe).
#define SA_DETAIL_FMA_STEP(fma, i) fma(a[(8 * Gs + (i)) * SA], b[(8 * Gs + (i)) * SB],
#define SA_DETAIL_FMA_EIGHT(fma)                                                                                   \
  ((acc = SA_DETAIL_FMA_STEP(fma, 7) SA_DETAIL_FMA_STEP(fma, 6) SA_DETAIL_FMA_STEP(fma, 5)                          \
       SA_DETAIL_FMA_STEP(fma, 4) SA_DETAIL_FMA_STEP(fma, 3) SA_DETAIL_FMA_STEP(fma, 2) SA_DETAIL_FMA_STEP(fma, 1) \
           SA_DETAIL_FMA_STEP(fma, 0) acc))))))))),                                                                 \
   ...)
template <class T, std::size_t SA, std::size_t SB, std::size_t First, std::size_t... Gs, std::size_t... Ks>
constexpr T nested_chunk(T acc, const T* a, const T* b, std::index_sequence<Gs...>,
                         std::index_sequence<Ks...>) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    if constexpr (sizeof...(Gs) > 0) SA_DETAIL_FMA_EIGHT(__builtin_fmaf);
    ((acc = __builtin_fmaf(a[(First + Ks) * SA], b[(First + Ks) * SB], acc)), ...);
  } else {
    if constexpr (sizeof...(Gs) > 0) SA_DETAIL_FMA_EIGHT(__builtin_fma);
    ((acc = __builtin_fma(a[(First + Ks) * SA], b[(First + Ks) * SB], acc)), ...);
  }
  return acc;
}
#undef SA_DETAIL_FMA_EIGHT
#undef SA_DETAIL_FMA_STEP

// Smallest nonzero and largest magnitude of p[0 .. n) in lo and hi (hi: NaN if any is NaN).
template <class T, std::size_t... I>
constexpr void scan_chunk(const T* p, T& lo, T& hi, std::index_sequence<I...>) noexcept {
  T m = 0;
  ((m = p[I] < 0 ? -p[I] : p[I], lo = m != 0 && m < lo ? m : lo, hi = m > hi || m != m ? m : hi), ...);
}

template <class T, std::size_t N>
constexpr void scan(const T* p, T& lo, T& hi) noexcept {
  constexpr std::size_t full = N / fold_chunk;
  for (std::size_t c = 0; c < full; ++c)
    scan_chunk<T>(p + c * fold_chunk, lo, hi, std::make_index_sequence<fold_chunk>{});
  if constexpr (full * fold_chunk < N)
    scan_chunk<T>(p + full * fold_chunk, lo, hi, std::make_index_sequence<N - full * fold_chunk>{});
}

/// Whether every fma of a product of a (NA elements) and b (NB), K terms a dot, folds in GCC:
/// finite elements, every nonzero |a_ik b_kj| >= 2^-77 (float; 2^-900 double) and
/// K max|a| max|b| <= 2^100 (2^1000). Then every partial sum is 0 or normal, and finite
/// (fma_safe_float, fma_safe_double).
template <class T, std::size_t K, std::size_t NA, std::size_t NB>
constexpr bool scan_safe(const T* a, const T* b) noexcept {
  constexpr T inf = std::numeric_limits<T>::infinity();
  T lo_a = inf, hi_a = 0, lo_b = inf, hi_b = 0;
  scan<T, NA>(a, lo_a, hi_a);
  scan<T, NB>(b, lo_b, hi_b);
  constexpr T low = std::is_same_v<T, float> ? static_cast<T>(0x1p-77) : static_cast<T>(0x1p-900);
  constexpr T high = std::is_same_v<T, float> ? static_cast<T>(0x1p100) : static_cast<T>(0x1p1000);
  return lo_a * lo_b >= low && hi_a * hi_b * static_cast<T>(K) <= high;
}
#endif

template <class T, arithmetic A, std::size_t SA, std::size_t SB, std::size_t First, std::size_t N>
constexpr T chunk(T acc, const T* a, const T* b) noexcept {
  if constexpr (A == arithmetic::unfused) {
    return dot_chunk<T, SA, SB>(acc, a + First * SA, b + First * SB, std::make_index_sequence<N>{});
  } else if constexpr (A == arithmetic::fused) {
    return fma_chunk<SA, SB>(acc, a + First * SA, b + First * SB, std::make_index_sequence<N>{});
  } else {
#if defined(__GNUC__) && !defined(__clang__)
    return nested_chunk<T, SA, SB, N / 8 * 8>(acc, a + First * SA, b + First * SB, std::make_index_sequence<N / 8>{},
                                              std::make_index_sequence<N % 8>{});
#else
    return acc;
#endif
  }
}

// sum over k < K of a[k SA] b[k SB], in order of k, in arithmetic A.
template <class T, arithmetic A, std::size_t K, std::size_t SA, std::size_t SB>
constexpr T dot(const T* a, const T* b) noexcept {
  if constexpr (K <= fold_chunk) {
    return chunk<T, A, SA, SB, 0, K>(T{}, a, b);
  } else {
    constexpr std::size_t full = K / fold_chunk;
    T acc{};
    for (std::size_t c = 0; c < full; ++c)
      acc = chunk<T, A, SA, SB, 0, fold_chunk>(acc, a + c * fold_chunk * SA, b + c * fold_chunk * SB);
    if constexpr (full * fold_chunk < K) acc = chunk<T, A, SA, SB, full * fold_chunk, K - full * fold_chunk>(acc, a, b);
    return acc;
  }
}

// out (R x C) = a (R x K) . b, b's element (k, j) at b[k SB + j SJ], in arithmetic A.
template <class T, arithmetic A, std::size_t R, std::size_t K, std::size_t C, std::size_t SB, std::size_t SJ>
constexpr void product(const T* a, const T* b, T* out) noexcept {
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) out[i * C + j] = dot<T, A, K, 1, SB>(a + i * K, b + j * SJ);
}

// The product in the build's arithmetic; b has NB elements.
template <class T, std::size_t R, std::size_t K, std::size_t C, std::size_t SB, std::size_t SJ, std::size_t NB>
constexpr void product_in_build(const T* a, const T* b, T* out) noexcept {
  if constexpr (!kernels_fuse<T>) {
    product<T, arithmetic::unfused, R, K, C, SB, SJ>(a, b, out);
  } else {
#if defined(__GNUC__) && !defined(__clang__)
    if (scan_safe<T, K, R * K, NB>(a, b)) {
      product<T, arithmetic::nested, R, K, C, SB, SJ>(a, b, out);
      return;
    }
#endif
    product<T, arithmetic::fused, R, K, C, SB, SJ>(a, b, out);
  }
}
}  // namespace ce

/// out (R x C) = a (R x K) . b (K x C); the three must not overlap.
template <class T, std::size_t R, std::size_t K, std::size_t C>
constexpr void matmul_kernel(const T* a, const T* b, T* out) noexcept {
  if constexpr (!std::is_floating_point_v<T>) {
    // Integers and bool: one plain loop at both times. Products of small integers are promoted
    // to int, so each sum is converted back explicitly (bool: an OR of ANDs).
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t j = 0; j < C; ++j) {
        T acc{};
        for (std::size_t k = 0; k < K; ++k) acc = static_cast<T>(acc + a[i * K + k] * b[k * C + j]);
        out[i * C + j] = acc;
      }
  } else if (std::is_constant_evaluated()) {
    ce::product_in_build<T, R, K, C, C, 1, K * C>(a, b, out);
  } else {
    simd::matmul<T, R, K, C>(a, b, out);
  }
}

/// out (R x C) = a (R x K) . b^T where b is C x K: the product with a transposed operand,
/// Q K^T, without building the transpose in constant evaluation (both operands are read along
/// their contiguous rows). Same order of additions as matmul_kernel(a, transpose(b)).
template <class T, std::size_t R, std::size_t K, std::size_t C>
constexpr void matmul_abt_kernel(const T* a, const T* b, T* out) noexcept {
  if (std::is_constant_evaluated()) {
    ce::product_in_build<T, R, K, C, 1, K, C * K>(a, b, out);
  } else {
    simd::matmul_abt<T, R, K, C>(a, b, out);
  }
}

}  // namespace static_attention::detail
