// SPDX-License-Identifier: BSL-1.0
// The numerics behind sampling.hpp: the steps of the book's chapter-5 `generate` as PyTorch 1.13
// runs them on the CPU (AVX2 kernels, torch built without MKL, as Debian's python3-torch is),
// in constexpr code with the same bits at compile time and at run time.
//
//  * top-k: `torch.topk(logits, k)[0][:, -1]` is the k-th largest logit (ties counted); every
//    logit `< ` it becomes -inf (ties with it are kept, so more than k may survive).
//  * `logits / temperature`: one division by the temperature rounded to the element type.
//  * `torch.softmax(x, -1)` (_vec_softmax_lastdim, AVX2): max; e = Sleef_expf8_u10(x - max);
//    sum = vec::reduce_all(+) (8 lanes, chunk by chunk, the tail into the first lanes, then the
//    lanes as ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)); fewer than 8 values in order);
//    then e * (1 / sum). double: Sleef_expd4_u10, 4 lanes summed in order l0 + l1 + l2 + l3.
//  * `torch.multinomial(probs, 1)` (no replacement, one sample): Distributions.cpp's
//    exponential race, `q = empty_like(probs).exponential_(1); argmax(probs / q)`. exponential_
//    without MKL draws one double per element in order, u = (random64() & (2^53 - 1)) 2^-53,
//    and returns (T)(-1.0 / 1.0 * log(1 - u)) with glibc's log (normal_log.hpp); argmax takes the first maximum,
//    NaN above everything (torch's greater_or_nan).
// All FMAs are computed exactly (exact_fma.hpp), with contraction off.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include <static_attention/core/detail/exact_fma.hpp>
#include <static_attention/core/detail/math_common.hpp>
#include <static_attention/core/detail/normal_log.hpp>

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention::detail::torch_sampling {

using torch_normal::fused;

// _mm256_cvtps_epi32 / cvtpd2dq: to the nearest integer, ties to even (|x| < 2^31).
template <class F>
[[nodiscard]] constexpr std::int32_t round_even(F x) noexcept {
  const auto t = static_cast<std::int32_t>(x);  // towards zero
  const F r = x - static_cast<F>(t);            // exact
  const bool odd = (t & 1) != 0;
  return r > F(0.5) || (r == F(0.5) && odd) ? t + 1 : r < F(-0.5) || (r == F(-0.5) && odd) ? t - 1 : t;
}

// 2^e for e in float's normal range (Sleef's vpow2i), and double's.
[[nodiscard]] constexpr float pow2i_f(std::int32_t e) noexcept {
  return __builtin_bit_cast(float, static_cast<std::uint32_t>(e + 127) << 23);
}
[[nodiscard]] constexpr double pow2i_d(std::int32_t e) noexcept {
  return __builtin_bit_cast(double, static_cast<std::uint64_t>(e + 1023) << 52);
}

// Sleef 3.5's xexpf (Sleef_expf8_u10 on AVX2, every vmla an FMA) for -104 <= d <= 0; below -104
// it is +0. (The softmax never calls it with d > 0 or NaN.)
[[nodiscard]] constexpr float sleef_expf(float d) noexcept {
  if (d < -104.0f) return 0.0f;
  const std::int32_t q = round_even(d * 1.442695040888963407359924681001892137426645954152985934135449406931f);
  const float qf = static_cast<float>(q), s1 = fused(qf, -0.693145751953125f, d).value,
              s = fused(qf, -1.428606765330187045e-06f, s1).value,
              u1 = fused(0.000198527617612853646278381f, s, 0.00139304355252534151077271f).value,
              u2 = fused(u1, s, 0.00833336077630519866943359f).value,
              u3 = fused(u2, s, 0.0416664853692054748535156f).value,
              u4 = fused(u3, s, 0.166666671633720397949219f).value, u5 = fused(u4, s, 0.5f).value,
              u = 1.0f + fused(s * s, u5, s).value;
  return u * pow2i_f(q >> 1) * pow2i_f(q - (q >> 1));
}

// Sleef 3.5's xexp as Sleef_expd4_u10 runs it on AVX2 (ENABLE_FMA_DP: an Estrin POLY10, then
// three Horner steps, every MLA one FMA) for -1000 <= d <= 0; below, +0.
[[nodiscard]] constexpr double sleef_exp(double d) noexcept {
  if (d < -1000.0) return 0.0;
  const std::int32_t q = round_even(d * 1.442695040888963407359924681001892137426645954152985934135449406931);
  const double qf = static_cast<double>(q),
               s = fused(qf, -.28235290563031577122588448175013436025525412068e-12,
                         fused(qf, -.69314718055966295651160180568695068359375, d).value)
                       .value,
               s2 = s * s, s4 = s2 * s2, s8 = s4 * s4,
               p98 = fused(s, +0.2081276378237164457e-8, +0.2511210703042288022e-7).value,
               p76 = fused(s, +0.2755762628169491192e-6, +0.2755723402025388239e-5).value,
               p54 = fused(s, +0.2480158687479686264e-4, +0.1984126989855865850e-3).value,
               p32 = fused(s, +0.1388888888914497797e-2, +0.8333333333314938210e-2).value,
               p10 = fused(s, +0.4166666666666602598e-1, +0.1666666666666669072e+0).value,
               p7_4 = fused(s2, p76, p54).value, p3_0 = fused(s2, p32, p10).value, p7_0 = fused(s4, p7_4, p3_0).value,
               poly = fused(s8, p98, p7_0).value, u1 = fused(poly, s, 0.5).value, u2 = fused(u1, s, 1.0).value,
               u = fused(u2, s, 1.0).value;
  return u * pow2i_d(q >> 1) * pow2i_d(q - (q >> 1));
}

template <class T>
[[nodiscard]] constexpr T torch_exp(T d) noexcept {
  if constexpr (sizeof(T) == sizeof(float))
    return sleef_expf(d);
  else
    return sleef_exp(d);
}

// exp(x - max) as the kernel computes it, without forming an x - max that overflows (x at
// -inf, or a difference below the finite range): those are +0 in the kernel too.
template <class T>
[[nodiscard]] constexpr T exp_shifted(T x, T max) noexcept {
  constexpr T cutoff = sizeof(T) == sizeof(float) ? T(-104) : T(-1000);
  if (x == -std::numeric_limits<T>::infinity() || x / 2 - max / 2 < cutoff / 2) return T{0};
  return torch_exp(x - max);
}

// vec::reduce_all(+) over e[0, n): Vectorized<T>'s lane count W (8 floats, 4 doubles on AVX2).
template <class T>
[[nodiscard]] constexpr T reduce_sum(const T* e, std::size_t n) noexcept {
  constexpr std::size_t W = 32 / sizeof(T);
  if (n < W) {
    T acc = e[0];
    for (std::size_t i = 1; i < n; ++i) acc = acc + e[i];
    return acc;
  }
  T lane[W]{};
  for (std::size_t l = 0; l < W; ++l) lane[l] = e[l];
  std::size_t d = W;
  for (; d + W <= n; d += W)
    for (std::size_t l = 0; l < W; ++l) lane[l] = lane[l] + e[d + l];
  for (std::size_t l = 0; d + l < n; ++l) lane[l] = lane[l] + e[d + l];
  if constexpr (W == 8) {  // VecReduceAllSIMD<float>: 128-, 64- and 32-bit shuffles
    return ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]));
  } else {  // the generic vec_reduce_all, lane by lane
    T acc = lane[0];
    for (std::size_t l = 1; l < W; ++l) acc = acc + lane[l];
    return acc;
  }
}

// torch.softmax(x[0, n), -1) in place, x finite or -inf with at least one finite value.
template <class T>
constexpr void softmax_row(T* x, std::size_t n) noexcept {
  T max = x[0];
  for (std::size_t j = 1; j < n; ++j) max = x[j] > max ? x[j] : max;
  for (std::size_t j = 0; j < n; ++j) x[j] = exp_shifted(x[j], max);
  const T inv = T{1} / reduce_sum(x, n);  // the max contributes 1: sum >= 1
  for (std::size_t j = 0; j < n; ++j) x[j] = x[j] * inv;
}

// torch's greater_or_nan(a, b) for a later index than b's: NaN above everything, else a > b.
template <class T>
[[nodiscard]] constexpr bool beats(T a, T b) noexcept {
  return a != a ? b == b : a > b;
}

// torch.argmax: the first maximum, a NaN above everything.
template <class T>
[[nodiscard]] constexpr std::size_t argmax(const T* x, std::size_t n) noexcept {
  std::size_t best = 0;
  for (std::size_t j = 1; j < n; ++j)
    if (beats(x[j], x[best])) best = j;
  return best;
}

// An order-preserving key of a float or double (-0 just below +0).
template <class T>
[[nodiscard]] constexpr auto order_key(T x) noexcept {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr U sign = U{1} << (8 * sizeof(T) - 1);
  const U u = __builtin_bit_cast(U, x);
  return (u & sign) != 0 ? static_cast<U>(~u) : static_cast<U>(u | sign);
}

// The k-th largest of x[0, n) counting ties (1 <= k <= n; x not NaN): torch.topk's last value.
// A bisection on the keys (one pass per bit), so no copy of x is needed.
template <class T>
[[nodiscard]] constexpr T kth_largest(const T* x, std::size_t n, std::size_t k) noexcept {
  using U = decltype(order_key(T{}));
  U key = 0;  // the largest key K with #{x >= K} >= k, built bit by bit from the top
  for (std::size_t bit = 8 * sizeof(T); bit-- > 0;) {
    const U trial = static_cast<U>(key | (U{1} << bit));
    std::size_t count = 0;
    for (std::size_t j = 0; j < n; ++j) count += order_key(x[j]) >= trial ? 1u : 0u;
    if (count >= k) key = trial;
  }
  for (std::size_t j = 0; j < n; ++j)
    if (order_key(x[j]) == key) return x[j];
  return x[0];  // unreachable: the largest such key is some x's
}

// The book's top-k filter: logits below the k-th largest become -inf.
template <class T>
constexpr void keep_top_k(T* x, std::size_t n, std::size_t k) noexcept {
  const T min_val = kth_largest(x, n, k);
  for (std::size_t j = 0; j < n; ++j)
    if (x[j] < min_val) x[j] = -std::numeric_limits<T>::infinity();
}

// One exponential_(1) draw of a tensor of T (torch without MKL): (T)(-log(1 - u)).
template <class T, class Generator>
[[nodiscard]] constexpr T exponential_draw(Generator& gen) noexcept {
  const double u = static_cast<double>(gen.random64() & 0x1f'ffff'ffff'ffffULL) * 0x1p-53;
  return static_cast<T>(-1.0 / 1.0 * torch_normal::arm_log(1.0 - u));
}

// p / q as IEEE division gives it, q == 0 included (q is -0 when u was 0; p >= 0 or NaN).
template <class T>
[[nodiscard]] constexpr T ratio(T p, T q) noexcept {
  if (q == T{0}) return p > T{0} ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::quiet_NaN();
  return p / q;
}

// torch.multinomial(p, 1) for one row of probabilities: argmax(p / q), q ~ Exp(1) drawn in order.
template <class T, class Generator>
[[nodiscard]] constexpr std::size_t exponential_race(const T* p, std::size_t n, Generator& gen) noexcept {
  std::size_t best = 0;
  T best_ratio = ratio(p[0], exponential_draw<T>(gen));
  for (std::size_t j = 1; j < n; ++j) {
    const T r = ratio(p[j], exponential_draw<T>(gen));
    if (beats(r, best_ratio)) {
      best = j;
      best_ratio = r;
    }
  }
  return best;
}

}  // namespace static_attention::detail::torch_sampling

#include <static_attention/core/detail/math_end.hpp>
