// The numerics behind random.hpp's normal(): PyTorch 1.13's CPU `tensor.normal_` kernels,
// reproduced bit for bit in constexpr code (no heap, no I/O, no <cmath>).
//
//  * Exact fused multiply-add without FMA hardware: fused(a, b, c).value, float or double.
//  * float: the kernel of PyTorch's AVX2 build, normal_fill_16_AVX2, with avx_mathfun.h's
//    Cephes log and sincos; the FMAs are the ones GCC formed when it compiled them
//    (-mfma -ffp-contract=fast), read from libtorch_cpu.so's machine code.
//  * double: normal_fill_16<double> and at::normal_distribution<double>, which call glibc's
//    log and sincos: glibc 2.36's x86-64 FMA variants (__ieee754_log_fma, Szabolcs Nagy's table
//    log; __sincos_fma, IBM's Accurate Mathematical Library), again with the FMAs GCC formed,
//    read from libm.so.6's machine code, and with glibc's tables (__log_data, __sincostab),
//    read from its data. log takes positive normal arguments and sincos |x| < 105414350
//    (below glibc's multi-precision reduction); Box-Muller needs (0, 1] and [0, 2 pi).
//  * Square roots correctly rounded, as the kernels' vsqrtps and vsqrtpd are.
//
// Checked on this machine, at run time through both code paths (the constant evaluator's and
// the run-time one): every float uniform through the float kernel against torch (each of the
// 2^24 values as u1 and as u2, three mean/std pairs); 4e8 logs and 3e8 sincos against
// libm.so.6; the float square root on all 2^31 positive floats.
//
// Constant-evaluation cost (a model is initialised inside a static_assert): Clang charges one
// step per statement evaluated and none per operator, a function call at least two (its body
// and its return) and a constructor with an empty body one. So the fused multiply-add,
// evaluated some 15 times per normal, is a class whose constructor computes it in member
// initialisers; the kernels are one declaration with many declarators and a return; bit casts
// are __builtin_bit_cast (std::bit_cast is a call). GCC counts operations instead, and
// charges member reads more than local ones, so the classes keep few members.
//
// FMA contraction is off throughout (GCC: optimize pragma; Clang: fp contract pragma for the
// whole file, which covers member initialisers too), so exactly the FMAs written are fused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "static_attention/detail/math_common.hpp"

#if defined(__clang__)
#pragma float_control(push)
#pragma clang fp contract(off)
#endif
SA_DETAIL_MATH_BEGIN

namespace static_attention::detail::torch_normal {

// ---------------------------------------------------------------------------------------------
// Exact fused multiply-add

// a + b rounded to odd: s = RN(a + b) if that is exact or has an odd last bit, otherwise the
// neighbour of s towards the exact sum (whose last bit is odd). Rounding to odd and then to
// nearest in a narrower format, or after adding a larger term, is one correct rounding.
[[nodiscard]] constexpr double add_round_to_odd(double a, double b) noexcept {
  const double s = a + b, bv = s - a, e = (a - (s - bv)) + (b - bv);
  const std::uint64_t m = __builtin_bit_cast(std::uint64_t, s);
  return e == 0.0 || (m & 1U) != 0 ? s : __builtin_bit_cast(double, (s > 0.0) == (e > 0.0) ? m + 1 : m - 1);
}

// fma(a, b, c), rounded once: fused(a, b, c).value, for float and for double.
template <class F>
struct fused;

/// float: a * b is exact in double (24 + 24 bits), so sum = RN(a * b + c) is one rounding,
/// and rounding it to float is the correct result unless it lies exactly halfway between two
/// floats (the first rounding may have made that tie) or below float's normal range; those rare
/// cases round to odd first.
template <>
struct fused<float> {
  double sum;
  float value;
  constexpr fused(float a, float b, float c) noexcept
      : sum(static_cast<double>(a) * static_cast<double>(b) + static_cast<double>(c)),
        value((__builtin_bit_cast(std::uint64_t, sum) & 0x1fff'ffffU) != 0x1000'0000U &&
                      (sum > 0x1p-126 || sum < -0x1p-126)
                  ? static_cast<float>(sum)
                  : static_cast<float>(
                        add_round_to_odd(static_cast<double>(a) * static_cast<double>(b), static_cast<double>(c)))) {}
};

/// double (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms
/// using rounding to odd", IEEE TC 2008, algorithm 5): a * b = p + pe exactly (Dekker's product
/// on Veltkamp's halves ah + (a - ah), bh + (b - bh)), c + p = th + tl exactly (Knuth's TwoSum),
/// then RN(th + RO(tl + pe)), the rounding to odd from a third TwoSum, tl + pe = s + se.
/// Needs |a|, |b| < 2^995 and no underflow in the error terms: true of every use here.
/// Only values read twice are members (reads of members cost GCC's evaluator more operations
/// than recomputing a difference); the rest is recomputed.
template <>
struct fused<double> {
  static constexpr double splitter = 0x1p27 + 1.0;
  double ah, bh, p, pe, th, tl, s, se;
  double value;
  constexpr fused(double a, double b, double c) noexcept
      : ah(splitter * a - (splitter * a - a)),
        bh(splitter * b - (splitter * b - b)),
        p(a * b),
        pe(((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)),
        th(c + p),
        tl((c - (th - (th - c))) + (p - (th - c))),
        s(tl + pe),
        se((tl - (s - (s - tl))) + (pe - (s - tl))),
        value(th +
              (se == 0.0 || (__builtin_bit_cast(std::uint64_t, s) & 1U) != 0
                   ? s
                   : __builtin_bit_cast(double, (s > 0.0) == (se > 0.0) ? __builtin_bit_cast(std::uint64_t, s) + 1
                                                                        : __builtin_bit_cast(std::uint64_t, s) - 1))) {}
};

template <class F>
fused(F, F, F) -> fused<F>;

// ---------------------------------------------------------------------------------------------
// Correctly rounded square roots of x > 0 finite and normal (+-0 is returned as it is): in
// constant evaluation by Newton's iteration and an exact rounding test, at run time by the
// sqrtss/sqrtsd instruction (IEEE 754 square roots are correctly rounded: the same bits).

// float: Newton's iteration y <- (y + x / y) / 2 in double from a first guess within 6% (the
// halved exponent) leaves a relative error below 1e-12 after three steps, so q is the float
// nearest sqrt(x) or a neighbour of it. The midpoints between q and its neighbours have 25
// bits: their squares are exact in double and decide the rounding.
[[nodiscard]] constexpr float sqrt_f(float x) noexcept {
  if (!__builtin_is_constant_evaluated()) return __builtin_sqrtf(x);  // the same, correctly rounded, faster
  // xd keeps +-0 out of the arithmetic (sqrt(+-0) = +-0 is returned at the end).
  const double xd = x == 0.0f ? 1.0 : static_cast<double>(x),
               y0 = __builtin_bit_cast(double, (__builtin_bit_cast(std::uint64_t, xd) >> 1) + 0x1ff8'0000'0000'0000ULL),
               y1 = 0.5 * (y0 + xd / y0), y2 = 0.5 * (y1 + xd / y1), y3 = 0.5 * (y2 + xd / y2),
               q = static_cast<float>(y3),
               up = __builtin_bit_cast(float, __builtin_bit_cast(std::uint32_t, static_cast<float>(y3)) + 1),
               down = __builtin_bit_cast(float, __builtin_bit_cast(std::uint32_t, static_cast<float>(y3)) - 1),
               hi = 0.5 * (q + up), lo = 0.5 * (q + down);
  return x == 0.0f ? x : static_cast<float>(xd > hi * hi ? up : xd < lo * lo ? down : q);
}

// double: y, after four Newton steps, is within an ulp of sqrt(x), so r = x - y^2 is exact
// (one fma). With u = ulp(y): sqrt(x) > y + u/2 iff r > y u, and sqrt(x) < y - u/2 iff
// r <= -y u (r and y u are multiples of u^2, so the u^2/4 of (y +- u/2)^2 cannot tip the
// comparison); below a power of two the gap is u/2 and the test is r <= -y u / 2.
[[nodiscard]] constexpr double sqrt_d(double x) noexcept {
  if (!__builtin_is_constant_evaluated()) return __builtin_sqrt(x);  // the same, correctly rounded, faster
  // xs keeps +-0 out of the arithmetic (sqrt(+-0) = +-0 is returned at the end).
  const double xs = x == 0.0 ? 1.0 : x,
               y0 = __builtin_bit_cast(double, (__builtin_bit_cast(std::uint64_t, xs) >> 1) + 0x1ff8'0000'0000'0000ULL),
               y1 = 0.5 * (y0 + xs / y0), y2 = 0.5 * (y1 + xs / y1), y3 = 0.5 * (y2 + xs / y2),
               y = 0.5 * (y3 + xs / y3), r = fused(-y, y, xs).value,
               yu = y * __builtin_bit_cast(
                            double, (__builtin_bit_cast(std::uint64_t, y) & 0x7ff0'0000'0000'0000ULL) - (52ULL << 52)),
               yu_below = (__builtin_bit_cast(std::uint64_t, y) & 0x000f'ffff'ffff'ffffULL) == 0 ? 0.5 * yu : yu;
  return x == 0.0         ? x
         : r > yu         ? __builtin_bit_cast(double, __builtin_bit_cast(std::uint64_t, y) + 1)
         : r <= -yu_below ? __builtin_bit_cast(double, __builtin_bit_cast(std::uint64_t, y) - 1)
                          : y;
}

// ---------------------------------------------------------------------------------------------
// float: PyTorch's AVX2 kernel, one lane at a time. Each fused() is an FMA that GCC formed in
// libtorch_cpu.so; every other product and sum is rounded on its own. Products that are exact
// (by a power of two, or of small integers by short constants) are written unfused: fusing
// them would not change a bit.

// Cephes' constants as the kernel loads them (avx_mathfun.h's literals rounded to float).
inline constexpr float sqrt_half_f = 0x1.6a09e6p-1f;
inline constexpr float log_p[9] = {0x1.204376p-4f,  -0x1.d7a370p-4f, 0x1.de4a34p-4f,  -0x1.fcba9ep-4f, 0x1.23d37ep-3f,
                                   -0x1.555ca0p-3f, 0x1.999d58p-3f,  -0x1.fffff8p-3f, 0x1.555554p-2f};
inline constexpr float log_q1 = -0x1.bd0106p-13f;  // ln 2 = q2 - q1 (Cody and Waite)
inline constexpr float log_q2 = 0x1.63p-1f;
inline constexpr float four_over_pi_f = 0x1.45f306p+0f;
inline constexpr float minus_dp1 = -0x1.92p-1f;  // -pi/4 in three parts
inline constexpr float minus_dp2 = -0x1.fb4p-13f;
inline constexpr float minus_dp3 = -0x1.4442d2p-25f;
inline constexpr float sin_p0 = -0x1.9943f2p-13f, sin_p1 = 0x1.11073cp-7f, sin_p2 = -0x1.555546p-3f;
inline constexpr float cos_p0 = 0x1.99eb9cp-16f, cos_p1 = -0x1.6c0c34p-10f, cos_p2 = 0x1.55554ap-5f;
inline constexpr float two_pi_f = 0x1.921fb6p+2f;  // _mm256_set1_ps(2.0f * c10::pi<double>)

// log256_ps, x positive and normal: x = m 2^e with m in [sqrt(1/2), sqrt(2)) and t = m - 1,
// log(x) = t + t^3 P(t) - t^2/2 + e ln 2 (P by Horner, one FMA per step).
[[nodiscard]] constexpr float cephes_log(float x) noexcept {
  // m in [0.5, 1) from x's mantissa; below sqrt(1/2) it is doubled (t = 2m - 1) and e lowered.
  const float m = __builtin_bit_cast(float, (__builtin_bit_cast(std::uint32_t, x) & ~0x7f80'0000U) | 0x3f00'0000U),
              e = (static_cast<float>(static_cast<std::int32_t>(__builtin_bit_cast(std::uint32_t, x) >> 23) - 127) +
                   1.0f) -
                  (m < sqrt_half_f ? 1.0f : 0.0f),
              t = (m - 1.0f) + (m < sqrt_half_f ? m : 0.0f), z = t * t, y1 = fused(log_p[0], t, log_p[1]).value,
              y2 = fused(y1, t, log_p[2]).value, y3 = fused(y2, t, log_p[3]).value, y4 = fused(y3, t, log_p[4]).value,
              y5 = fused(y4, t, log_p[5]).value, y6 = fused(y5, t, log_p[6]).value, y7 = fused(y6, t, log_p[7]).value,
              y8 = fused(y7, t, log_p[8]).value;
  return (t + (fused(y8 * t, z, e * log_q1).value - z * 0.5f)) + e * log_q2;
}

struct sin_cos_f {
  float sin;
  float cos;
};

// sincos256_ps, x finite with |x| < 2^31 pi/4: x = j pi/4 + r with j the even integer at or
// above |x| 4/pi (truncated, plus one, last bit cleared) and |r| <= pi/4, both polynomials in
// r^2, then the selection and the sign flips by octant. Signs of zero follow the vector code
// (and, andnot, then an add of +0).
[[nodiscard]] constexpr sin_cos_f cephes_sincos(float x) noexcept {
  const std::uint32_t sign = __builtin_bit_cast(std::uint32_t, x) & 0x8000'0000U;
  const float ax = __builtin_bit_cast(float, __builtin_bit_cast(std::uint32_t, x) ^ sign);
  const std::int32_t j = (static_cast<std::int32_t>(ax * four_over_pi_f) + 1) & ~1;
  const float y = static_cast<float>(j), r1 = fused(y, minus_dp1, ax).value, r2 = fused(y, minus_dp2, r1).value,
              r = fused(y, minus_dp3, r2).value, z = r * r, c1 = fused(z, cos_p0, cos_p1).value,
              c2 = fused(z, c1, cos_p2).value, c = fused(c2 * z, z, -(z * 0.5f)).value + 1.0f,
              s1 = fused(sin_p0, z, sin_p1).value, s2 = fused(z, s1, sin_p2).value, s = fused(z * s2, r, r).value,
              sin_poly = (j & 2) == 0 ? s + 0.0f : 0.0f + c, cos_poly = (j & 2) == 0 ? 0.0f + c : s + 0.0f;
  return {__builtin_bit_cast(
              float, __builtin_bit_cast(std::uint32_t, sin_poly) ^ sign ^ (static_cast<std::uint32_t>(j & 4) << 29)),
          __builtin_bit_cast(
              float, __builtin_bit_cast(std::uint32_t, cos_poly) ^ (static_cast<std::uint32_t>(~(j - 2) & 4) << 29))};
}

// One lane pair of normal_fill_16_AVX2, first[0] and first[8]: u1 = 1 - first[0] (in (0, 1]),
// r = sqrt(-2 log u1), theta = 2 pi first[8]; first[0] = r cos(theta) * std + mean and
// first[8] = r sin(theta) * std + mean, each one FMA.
constexpr void box_muller_avx2(float* first, float mean, float std_dev) noexcept {
  const sin_cos_f sc = cephes_sincos(two_pi_f * first[8]);
  const float radius = sqrt_f(-2.0f * cephes_log(1.0f - first[0]));
  first[0] = fused(radius * sc.cos, std_dev, mean).value;
  first[8] = fused(radius * sc.sin, std_dev, mean).value;
}

// ---------------------------------------------------------------------------------------------
// double: glibc 2.36's log and sincos as libm.so.6 runs them on an x86-64 CPU with FMA.

struct log_entry {
  double invc;  // near 1/c for the subinterval's centre c
  double logc;  // log(c)
};
struct sincos_entry {
  double sn, ssn;  // sin(k/128) = sn + ssn
  double cs, ccs;  // cos(k/128) = cs + ccs
};

// __log_data: ln 2 in two parts; log(1 + r) ~ r - r^2/2 + r^3 A(r) on the table path, and
// r + r^2 B(r) near 1; then invc and logc for 128 subintervals of [0x1.6p-1, 0x1.6p0).
inline constexpr double log_ln2hi = 0x1.62e42fefa3800p-1;  // 42 bits: k * ln2hi is exact
inline constexpr double log_ln2lo = 0x1.ef35793c76730p-45;
inline constexpr double log_a[5] = {-0x1.0000000000001p-1, 0x1.555555551305bp-2, -0x1.fffffffeb4590p-3,
                                    0x1.999b324f10111p-3, -0x1.55575e506c89fp-3};
inline constexpr double log_b[11] = {-0x1.0000000000000p-1, 0x1.5555555555577p-2,  -0x1.ffffffffffdcbp-3,
                                     0x1.999999995dd0cp-3,  -0x1.55555556745a7p-3, 0x1.24924a344de30p-3,
                                     -0x1.fffffa4423d65p-4, 0x1.c7184282ad6cap-4,  -0x1.999eb43b068ffp-4,
                                     0x1.78182f7afd085p-4,  -0x1.5521375d145cdp-4};

// __sincostab: sin and cos of k/128 for k = 0..109, each the sum of two doubles.
inline constexpr sincos_entry sincos_table[110] = {
    {0x0.0p+0, 0x0.0p+0, 0x1.0000000000000p+0, 0x0.0p+0},
    {0x1.fffeaaaaeeeefp-8, -0x1.e45e2ec67b77cp-62, 0x1.fffc000155552p-1, 0x1.f4a01a0196daep-55},
    {0x1.fffaaaaeeeed5p-7, -0x1.2ab639a9f0777p-63, 0x1.fff000155549fp-1, 0x1.28a28a03a5ef3p-55},
    {0x1.7ff7001033255p-6, 0x1.efe2b51527336p-64, 0x1.ffdc006bff7e6p-1, 0x1.ae6dae86977bdp-55},
    {0x1.ffeaaaeeee86fp-6, -0x1.cd406fb224ae2p-60, 0x1.ffc00155527d3p-1, -0x1.3b54492d89b5bp-55},
    {0x1.3feb2b12d45d5p-5, 0x1.4ec54203d1c11p-60, 0x1.ff9c03414a7bap-1, 0x1.991f4be6c59bfp-57},
    {0x1.7fdc01032fba9p-5, -0x1.599bdf46e997ap-59, 0x1.ff7006bfdf99fp-1, -0x1.8b3b560648d5fp-56},
    {0x1.bfc6d78586dacp-5, 0x1.8e4fd03dbf236p-62, 0x1.ff3c0c8103a31p-1, 0x1.4856dbddc0e66p-56},
    {0x1.ffaaaeeed4edbp-5, -0x1.2d16d32684b69p-59, 0x1.ff0015549f4d3p-1, 0x1.328387b99426fp-55},
    {0x1.1fc343d808befp-4, -0x1.f3d32e6f3be4fp-58, 0x1.febc222a8ef9fp-1, 0x1.7934934f54c77p-58},
    {0x1.3facb12d1755bp-4, -0x1.921915299468cp-58, 0x1.fe7034129ef6fp-1, -0x1.cbf4337c96f97p-57},
    {0x1.5f911fd10b737p-4, -0x1.0184f02be9102p-58, 0x1.fe1c4c3c873ebp-1, -0x1.5a9c9057c4a02p-60},
    {0x1.7f701032550e4p-4, 0x1.afc2d1800501ap-60, 0x1.fdc06bf7e6b9bp-1, 0x1.31902b535f8dbp-55},
    {0x1.9f4902d55d1f9p-4, 0x1.2696d7eac1dc1p-58, 0x1.fd5c94b43e000p-1, -0x1.2e768cb4f92f9p-57},
    {0x1.bf1b78568391dp-4, 0x1.e91841dea4cc8p-58, 0x1.fcf0c800e99b1p-1, 0x1.ea3d786d186acp-57},
    {0x1.dee6f16c1cce6p-4, -0x1.50f8e2fb71673p-59, 0x1.fc7d078d1bc88p-1, 0x1.075d2447db685p-55},
    {0x1.feaaeee86ee36p-4, -0x1.afcb2bcc6f03bp-59, 0x1.fc015527d5bd3p-1, 0x1.b68f35094efb8p-55},
    {0x1.0f3378ddd71d1p-3, 0x1.d8468724f0f9ep-57, 0x1.fb7db2bfe0695p-1, 0x1.21dadf4f65ab1p-55},
    {0x1.1f0d3d7afceafp-3, -0x1.6ef95099769a5p-57, 0x1.faf22263c4bd3p-1, -0x1.52ace133a2769p-58},
    {0x1.2ee285e4ab88fp-3, -0x1.e4d0f05dee058p-57, 0x1.fa5ea641c36f2p-1, 0x1.04da6ed17cc7cp-59},
    {0x1.3eb312c5d66cbp-3, 0x1.47d666b66cb91p-57, 0x1.f9c340a7cc428p-1, 0x1.c5b6b063b7462p-55},
    {0x1.4e7ea4dc5f27bp-3, 0x1.949db2ac072fcp-58, 0x1.f91ff40374d01p-1, -0x1.7d03f4d3a9e4cp-57},
    {0x1.5e44fcfa126f3p-3, -0x1.6f443063f89b6p-57, 0x1.f874c2e1eecf6p-1, -0x1.c6514e1332b16p-55},
    {0x1.6e05dc05a4d4cp-3, -0x1.32c5c8b81c940p-66, 0x1.f7c1afeffde24p-1, -0x1.8f55bc47540b1p-56},
    {0x1.7dc102fbaf2b5p-3, 0x1.5ab50e23c97c3p-59, 0x1.f706bdf9ece1cp-1, -0x1.698c80c36dcb4p-55},
    {0x1.8d7632efaa944p-3, -0x1.20fa262cbb953p-57, 0x1.f643efeb82acdp-1, 0x1.6b00ac1fe28acp-56},
    {0x1.9d252d0cec312p-3, 0x1.9c43d80b1137dp-58, 0x1.f57948cff6797p-1, 0x1.e3a0d3e03b1d5p-57},
    {0x1.accdb297a0765p-3, -0x1.9883b57d6cdebp-58, 0x1.f4a6cbd1e3a79p-1, 0x1.13df0edaebb57p-55},
    {0x1.bc6f84edc6199p-3, 0x1.9c1a56a7b0cabp-57, 0x1.f3cc7c3b3d16ep-1, -0x1.21a3ad28a3494p-57},
    {0x1.cc0a6588289a3p-3, -0x1.868d09bc87c6bp-57, 0x1.f2ea5d753ffedp-1, 0x1.cc4215f56d583p-55},
    {0x1.db9e15fb5a5d0p-3, -0x1.32e20d6cc6fc2p-57, 0x1.f20073086649fp-1, 0x1.b940416c1984bp-56},
    {0x1.eb2a57f8ae5a3p-3, -0x1.0be06af572cebp-57, 0x1.f10ec09c5873bp-1, 0x1.d9072762c1283p-55},
    {0x1.faaeed4f31577p-3, -0x1.15d88508e32b8p-57, 0x1.f01549f7deea1p-1, 0x1.d3c1e99e5cafdp-55},
    {0x1.0515cbf65155cp-2, -0x1.9b8c29dfd8ec8p-56, 0x1.ef141300d2f26p-1, -0x1.2aa1b08ded372p-55},
    {0x1.0cd00cef36436p-2, -0x1.9fb0a0c93e2b5p-56, 0x1.ee0b1fbc0f11cp-1, -0x1.bfd2380bbc3b1p-59},
    {0x1.14861aa94ddebp-2, -0x1.be881b5b615a4p-57, 0x1.ecfa744d5efa1p-1, -0x1.56d0a4af541d0p-58},
    {0x1.1c37d64c6b876p-2, 0x1.46076fe0dcff5p-56, 0x1.ebe214f76efa8p-1, -0x1.02f9f12ba543ep-55},
    {0x1.23e52111aaf36p-2, -0x1.4f080334eff18p-56, 0x1.eac2061bbaf4fp-1, 0x1.2c1d53e94658dp-57},
    {0x1.2b8ddc43eb49fp-2, 0x1.1553899f2d807p-57, 0x1.e99a4c3a7cd83p-1, -0x1.2264b1bc53ce8p-55},
    {0x1.3331e94049f87p-2, 0x1.e0cb6b40c302cp-56, 0x1.e86aebf29a9edp-1, 0x1.9397afdbb58a7p-55},
    {0x1.3ad129769d3d8p-2, 0x1.03d5504878398p-63, 0x1.e733ea0193d40p-1, -0x1.6428b3546ce13p-55},
    {0x1.426b7e69ee697p-2, -0x1.f09c75705c59fp-56, 0x1.e5f54b436e9d0p-1, 0x1.7eb0fd02fc8bcp-55},
    {0x1.4a00c9b0f3d20p-2, 0x1.823ba6bb08eadp-56, 0x1.e4af14b2a449cp-1, -0x1.68ca02e8a6833p-55},
    {0x1.5190ecf68a77ap-2, 0x1.b357155eef0f3p-56, 0x1.e3614b680d6a5p-1, -0x1.27793aa015237p-56},
    {0x1.591bc9fa2f597p-2, 0x1.7c74bac3fe0cbp-57, 0x1.e20bf49acd6c1p-1, -0x1.660aec7ef636cp-58},
    {0x1.60a1429078775p-2, 0x1.b1fd80ba89133p-58, 0x1.e0af15a03dbcep-1, 0x1.fe8e702771ae6p-58},
    {0x1.682138a38d7f7p-2, -0x1.d889202444aadp-56, 0x1.df4ab3ebd875ep-1, -0x1.e2d8a7e6736c4p-55},
    {0x1.6f9b8e33a0255p-2, 0x1.42bc14ee9da0dp-56, 0x1.ddded50f228d6p-1, -0x1.e80c8d42ba2bfp-57},
    {0x1.7710255764214p-2, -0x1.6ead7314bb6cep-57, 0x1.dc6b7eb995912p-1, 0x1.4b364776dcd35p-58},
    {0x1.7e7ee03c86d4ep-2, -0x1.b63bcdabf5af2p-56, 0x1.daf0b6b888e83p-1, 0x1.a249e2b5e5ceap-55},
    {0x1.85e7a12826949p-2, 0x1.8a40e9b5face0p-56, 0x1.d96e82f71a9dcp-1, 0x1.ff61bd5d2039dp-55},
    {0x1.8d4a4a774992fp-2, 0x1.44a02ea766326p-56, 0x1.d7e4e97e17b4ap-1, -0x1.3b770352bed94p-57},
    {0x1.94a6be9f546c5p-2, -0x1.69ce13e683f58p-56, 0x1.d653f073e4040p-1, -0x1.76236434bec37p-55},
    {0x1.9bfce02e80510p-2, 0x1.09e39a320b0a4p-56, 0x1.d4bb9e1c619e0p-1, 0x1.f34bb77858f61p-55},
    {0x1.a34c91cc50ccap-2, -0x1.a310e3b50cecdp-58, 0x1.d31bf8d8d7c06p-1, 0x1.e60dd3089cbddp-56},
    {0x1.aa95b63a09277p-2, -0x1.6293eb13c0381p-57, 0x1.d1750727d94f0p-1, 0x1.0d52b1ec1a48ep-55},
    {0x1.b1d8305321617p-2, -0x1.ae242cb99f519p-56, 0x1.cfc6cfa52ad9fp-1, 0x1.8b5b5508f2a0dp-55},
    {0x1.b913e30dbac43p-2, -0x1.e38ad2f6c3ff1p-56, 0x1.ce115909a82e5p-1, 0x1.1f139bb31109ap-55},
    {0x1.c048b17b140a3p-2, 0x1.19fe6757e9fa7p-57, 0x1.cc54aa2b2972ep-1, 0x1.4ee162ba83a98p-57},
    {0x1.c7767ec7fd19ep-2, -0x1.eb14d1a3d5826p-58, 0x1.ca90c9fc67d0bp-1, -0x1.46a81485e3462p-57},
    {0x1.ce9d2e3d4a51fp-2, -0x1.2fc8a12dae298p-57, 0x1.c8c5bf8ce1a84p-1, 0x1.ab3d1a1590123p-56},
    {0x1.d5bca34047661p-2, 0x1.28a44a75fc29cp-56, 0x1.c6f39208be53bp-1, -0x1.741dbfbaadb42p-55},
    {0x1.dcd4c15329c9ap-2, 0x1.0d4c6e171fd9ap-56, 0x1.c51a48b8b175ep-1, -0x1.1bbb43b9aa880p-57},
    {0x1.e3e56c1582a69p-2, -0x1.0a4821099f88fp-58, 0x1.c339eb01ddd81p-1, -0x1.caaf5ee82c5c0p-55},
    {0x1.eaee8744b05f0p-2, -0x1.789b43c9b027dp-58, 0x1.c1528065b7d50p-1, -0x1.892111312e828p-55},
    {0x1.f1eff6bc4f97bp-2, 0x1.17212f8a7525cp-56, 0x1.bf641081e7536p-1, 0x1.b7bd71628a9a1p-55},
    {0x1.f8e99e76abc97p-2, 0x1.9d950af2d00a3p-58, 0x1.bd6ea310294f5p-1, 0x1.31bbcc88c109dp-56},
    {0x1.ffdb628d2f57ap-2, 0x1.f4a992e905b6ap-57, 0x1.bb723fe630f32p-1, 0x1.72bd2452d0a39p-56},
    {0x1.0362939c69955p-1, -0x1.2d8cd78397b01p-55, 0x1.b96eeef58840ep-1, 0x1.45a3cc78fade0p-58},
    {0x1.06d3686946e5bp-1, 0x1.3f5ae4538ff1bp-55, 0x1.b764b84b704c2p-1, -0x1.f5848c21b389bp-55},
    {0x1.0a4021e9e1001p-1, -0x1.6f643a13914f6p-55, 0x1.b553a410c104ep-1, 0x1.8ff7947027a16p-58},
    {0x1.0da8b26b5672ep-1, -0x1.a58def0bee909p-55, 0x1.b33bba89c8948p-1, 0x1.ea6a51d1f6ca9p-55},
    {0x1.110d0c4b69c3bp-1, 0x1.d918998809981p-55, 0x1.b11d04162a4c6p-1, 0x1.1dd561efbc0c2p-56},
    {0x1.146d21f8b7f82p-1, 0x1.bf9535e2739a8p-56, 0x1.aef78930bd275p-1, -0x1.f836279746f94p-56},
    {0x1.17c8e5f2eedb0p-1, 0x1.35e57102e2488p-57, 0x1.accb526f69de5p-1, 0x1.8fb6a8dd6b6ccp-55},
    {0x1.1b204acb02fddp-1, -0x1.f190c70cbb5ffp-58, 0x1.aa98688308913p-1, -0x1.b83d607cd5070p-63},
    {0x1.1e7343236574cp-1, 0x1.22a3fa4f41d5ap-56, 0x1.a85ed4373e02dp-1, 0x1.9be06385ec792p-57},
    {0x1.21c1c1b0394cfp-1, 0x1.e5b324b23aa31p-58, 0x1.a61e9e72586afp-1, 0x1.58330e2fd453fp-55},
    {0x1.250bb93788bbbp-1, 0x1.ea3d02457bccep-56, 0x1.a3d7d0352bdcfp-1, -0x1.68dbaeca19669p-55},
    {0x1.28511c917a067p-1, -0x1.01df1d9a16b70p-55, 0x1.a18a729aee445p-1, 0x1.95e25736c0358p-60},
    {0x1.2b91dea88421ep-1, -0x1.fa371db216ab0p-55, 0x1.9f368ed912f85p-1, -0x1.1d200c5791606p-55},
    {0x1.2ecdf279a3082p-1, 0x1.d3557e0e7e37ep-55, 0x1.9cdc2e3f25e5cp-1, 0x1.3f99112993f62p-55},
    {0x1.32054b148bc4fp-1, 0x1.f6b42095a135bp-55, 0x1.9a7b5a36a6514p-1, 0x1.722cfcc9fa7a9p-55},
    {0x1.3537db9be0367p-1, 0x1.b327e7af040f0p-57, 0x1.98141c42e1310p-1, 0x1.d1ff80488f08dp-55},
    {0x1.386597456282bp-1, -0x1.10fada93b07a8p-56, 0x1.95a67e00cb1fdp-1, -0x1.0befda21f862dp-55},
    {0x1.3b8e715a2840ap-1, -0x1.97653a7d2f07bp-56, 0x1.93328926d9e92p-1, -0x1.bb77003600cdap-55},
    {0x1.3eb25d36cd53ap-1, -0x1.be570e1570fc0p-58, 0x1.90b84784ddaf7p-1, -0x1.0feb10ab93b87p-56},
    {0x1.41d14e4ba6790p-1, 0x1.4608fd287ecf5p-55, 0x1.8e37c303d9ad1p-1, -0x1.463a4b53d4bf8p-57},
    {0x1.44eb381cf386bp-1, -0x1.3ed6c1e6a5505p-55, 0x1.8bb105a5dc900p-1, 0x1.863e03e9474c1p-55},
    {0x1.48000e431159fp-1, -0x1.b194a7463ed10p-55, 0x1.89241985d871fp-1, 0x1.c48d9c413ed84p-55},
    {0x1.4b0fc46aab761p-1, 0x1.0da05738cc59ap-61, 0x1.869108d77a6c6p-1, 0x1.338ffe2bfe9ddp-56},
    {0x1.4e1a4e54ed51bp-1, -0x1.a492f89b7c76ap-55, 0x1.83f7dde701ca0p-1, -0x1.152cf609bc6e8p-59},
    {0x1.511f9fd7b351cp-1, -0x1.5c0e861c48831p-55, 0x1.8158a31916d5dp-1, -0x1.de8b90b8228dep-57},
    {0x1.541facddbb724p-1, 0x1.232c28520d391p-56, 0x1.7eb362eaa1488p-1, 0x1.a1d65a4a5959fp-58},
    {0x1.571a6966d59b3p-1, 0x1.c843b4d0fb198p-58, 0x1.7c0827f09e54fp-1, -0x1.c73d6d72aee68p-57},
    {0x1.5a0fc98813a12p-1, -0x1.d82e2b7d4227bp-55, 0x1.7956fcd7f6543p-1, -0x1.ab276e9d45ae4p-55},
    {0x1.5cffc16bf8f0dp-1, 0x1.96cb370eb578ap-55, 0x1.769fec655211fp-1, -0x1.827d5cf8c68c5p-57},
    {0x1.5fea4552a9e57p-1, 0x1.0b6cef7ee20b7p-55, 0x1.73e30174efba1p-1, -0x1.5d3ae3d94ad5fp-57},
    {0x1.62cf49921ac79p-1, -0x1.edd9855b6241ap-55, 0x1.712046fa77678p-1, 0x1.425b0a5029c81p-55},
    {0x1.65aec2963e755p-1, 0x1.126f96b71053cp-55, 0x1.6e57c800cf55ep-1, 0x1.60286dedbd0a6p-55},
    {0x1.6888a4e134b2fp-1, -0x1.6b7d37644d5e6p-55, 0x1.6b898fa9efb5dp-1, 0x1.15ac786ccf4b2p-56},
    {0x1.6b5ce50b7821ap-1, -0x1.5d5158f702e0fp-57, 0x1.68b5a92eb6253p-1, -0x1.9a91ad985f89cp-55},
    {0x1.6e2b77c40bde1p-1, -0x1.0e729857fad53p-56, 0x1.65dc1fdeb8cbap-1, -0x1.97c1b47337c77p-58},
    {0x1.70f451d0a8c40p-1, 0x1.97ede3885770dp-57, 0x1.62fcff20191c7p-1, 0x1.d9143895756efp-57},
    {0x1.73b7680dea578p-1, -0x1.2248306dc12a2p-56, 0x1.6018526f563dfp-1, 0x1.46ca5e0e432d0p-55},
    {0x1.7674af6f7b524p-1, 0x1.e9d3f94ac84a8p-56, 0x1.5d2e255f1f17ap-1, 0x1.0314104c8892bp-55},
    {0x1.792c1d0041d52p-1, -0x1.abf05eeb354ebp-55, 0x1.5a3e839824077p-1, 0x1.428aa2759be62p-55},
    {0x1.7bdda5e28b3c2p-1, 0x1.ad1197ccd0393p-59, 0x1.574978d8e83f2p-1, 0x1.f4714af282d23p-55},
    {0x1.7e893f5037959p-1, 0x1.0eefbaa650c4cp-55, 0x1.544f10f592ca5p-1, -0x1.e7ae8e6c7a62fp-55},
    {0x1.812ede9ae4ba4p-1, -0x1.7830adf402ddap-55, 0x1.514f57d7bf3dap-1, 0x1.47a108073c259p-56},
};

// __log_data's invc and logc for the 128 subintervals.
inline constexpr log_entry log_table[128] = {
    {0x1.734f0c3e0de9fp+0, -0x1.7cc7f79e69000p-2}, {0x1.713786a2ce91fp+0, -0x1.76feec20d0000p-2},
    {0x1.6f26008fab5a0p+0, -0x1.713e31351e000p-2}, {0x1.6d1a61f138c7dp+0, -0x1.6b85b38287800p-2},
    {0x1.6b1490bc5b4d1p+0, -0x1.65d5590807800p-2}, {0x1.69147332f0cbap+0, -0x1.602d076180000p-2},
    {0x1.6719f18224223p+0, -0x1.5a8ca86909000p-2}, {0x1.6524f99a51ed9p+0, -0x1.54f4356035000p-2},
    {0x1.63356aa8f24c4p+0, -0x1.4f637c36b4000p-2}, {0x1.614b36b9ddc14p+0, -0x1.49da7fda85000p-2},
    {0x1.5f66452c65c4cp+0, -0x1.445923989a800p-2}, {0x1.5d867b5912c4fp+0, -0x1.3edf439b0b800p-2},
    {0x1.5babccb5b90dep+0, -0x1.396ce448f7000p-2}, {0x1.59d61f2d91a78p+0, -0x1.3401e17bda000p-2},
    {0x1.5805612465687p+0, -0x1.2e9e2ef468000p-2}, {0x1.56397cee76bd3p+0, -0x1.2941b3830e000p-2},
    {0x1.54725e2a77f93p+0, -0x1.23ec58cda8800p-2}, {0x1.52aff42064583p+0, -0x1.1e9e129279000p-2},
    {0x1.50f22dbb2bddfp+0, -0x1.1956d2b48f800p-2}, {0x1.4f38f4734ded7p+0, -0x1.141679ab9f800p-2},
    {0x1.4d843cfde2840p+0, -0x1.0edd094ef9800p-2}, {0x1.4bd3ec078a3c8p+0, -0x1.09aa518db1000p-2},
    {0x1.4a27fc3e0258ap+0, -0x1.047e65263b800p-2}, {0x1.4880524d48434p+0, -0x1.feb224586f000p-3},
    {0x1.46dce1b192d0bp+0, -0x1.f474a7517b000p-3}, {0x1.453d9d3391854p+0, -0x1.ea4443d103000p-3},
    {0x1.43a2744b4845ap+0, -0x1.e020d44e9b000p-3}, {0x1.420b54115f8fbp+0, -0x1.d60a22977f000p-3},
    {0x1.40782da3ef4b1p+0, -0x1.cc00104959000p-3}, {0x1.3ee8f5d57fe8fp+0, -0x1.c202956891000p-3},
    {0x1.3d5d9a00b4ce9p+0, -0x1.b81178d811000p-3}, {0x1.3bd60c010c12bp+0, -0x1.ae2c9ccd3d000p-3},
    {0x1.3a5242b75dab8p+0, -0x1.a45402e129000p-3}, {0x1.38d22cd9fd002p+0, -0x1.9a877681df000p-3},
    {0x1.3755bc5847a1cp+0, -0x1.90c6d69483000p-3}, {0x1.35dce49ad36e2p+0, -0x1.87120a645c000p-3},
    {0x1.34679984dd440p+0, -0x1.7d68fb4143000p-3}, {0x1.32f5cceffcb24p+0, -0x1.73cb83c627000p-3},
    {0x1.3187775a10d49p+0, -0x1.6a39a9b376000p-3}, {0x1.301c8373e3990p+0, -0x1.60b3154b7a000p-3},
    {0x1.2eb4ebb95f841p+0, -0x1.5737d76243000p-3}, {0x1.2d50a0219a9d1p+0, -0x1.4dc7b8fc23000p-3},
    {0x1.2bef9a8b7fd2ap+0, -0x1.4462c51d20000p-3}, {0x1.2a91c7a0c1babp+0, -0x1.3b08abc830000p-3},
    {0x1.293726014b530p+0, -0x1.31b996b490000p-3}, {0x1.27dfa5757a1f5p+0, -0x1.2875490a44000p-3},
    {0x1.268b39b1d3bbfp+0, -0x1.1f3b9f879a000p-3}, {0x1.2539d838ff5bdp+0, -0x1.160c8252ca000p-3},
    {0x1.23eb7aac9083bp+0, -0x1.0ce7f57f72000p-3}, {0x1.22a012ba940b6p+0, -0x1.03cdc49fea000p-3},
    {0x1.2157996cc4132p+0, -0x1.f57bdbc4b8000p-4}, {0x1.201201dd2fc9bp+0, -0x1.e370896404000p-4},
    {0x1.1ecf4494d480bp+0, -0x1.d17983ef94000p-4}, {0x1.1d8f5528f6569p+0, -0x1.bf9674ed8a000p-4},
    {0x1.1c52311577e7cp+0, -0x1.adc79202f6000p-4}, {0x1.1b17c74cb26e9p+0, -0x1.9c0c3e7288000p-4},
    {0x1.19e010c2c1ab6p+0, -0x1.8a646b372c000p-4}, {0x1.18ab07bb670bdp+0, -0x1.78d01b3ac0000p-4},
    {0x1.1778a25efbcb6p+0, -0x1.674f145380000p-4}, {0x1.1648d354c31dap+0, -0x1.55e0e6d878000p-4},
    {0x1.151b990275fddp+0, -0x1.4485cdea1e000p-4}, {0x1.13f0ea432d24cp+0, -0x1.333d94d6aa000p-4},
    {0x1.12c8b7210f9dap+0, -0x1.22079f8c56000p-4}, {0x1.11a3028ecb531p+0, -0x1.10e4698622000p-4},
    {0x1.107fbda8434afp+0, -0x1.ffa6c6ad20000p-5}, {0x1.0f5ee0f4e6bb3p+0, -0x1.dda8d4a774000p-5},
    {0x1.0e4065d2a9fcep+0, -0x1.bbcece4850000p-5}, {0x1.0d244632ca521p+0, -0x1.9a1894012c000p-5},
    {0x1.0c0a77ce2981ap+0, -0x1.788583302c000p-5}, {0x1.0af2f83c636d1p+0, -0x1.5715e67d68000p-5},
    {0x1.09ddb98a01339p+0, -0x1.35c8a49658000p-5}, {0x1.08cabaf52e7dfp+0, -0x1.149e364154000p-5},
    {0x1.07b9f2f4e28fbp+0, -0x1.e72c082eb8000p-6}, {0x1.06ab58c358f19p+0, -0x1.a55f152528000p-6},
    {0x1.059eea5ecf92cp+0, -0x1.63d62cf818000p-6}, {0x1.04949cdd12c90p+0, -0x1.228fb8caa0000p-6},
    {0x1.038c6c6f0ada9p+0, -0x1.c317b20f90000p-7}, {0x1.02865137932a9p+0, -0x1.419355daa0000p-7},
    {0x1.0182427ea7348p+0, -0x1.81203c2ec0000p-8}, {0x1.008040614b195p+0, -0x1.0040979240000p-9},
    {0x1.fe01ff726fa1ap-1, 0x1.feff384900000p-9},  {0x1.fa11cc261ea74p-1, 0x1.7dc41353d0000p-7},
    {0x1.f6310b081992ep-1, 0x1.3cea3c4c28000p-6},  {0x1.f25f63ceeadcdp-1, 0x1.b9fc114890000p-6},
    {0x1.ee9c8039113e7p-1, 0x1.1b0d8ce110000p-5},  {0x1.eae8078cbb1abp-1, 0x1.58a5bd001c000p-5},
    {0x1.e741aa29d0c9bp-1, 0x1.95c8340d88000p-5},  {0x1.e3a91830a99b5p-1, 0x1.d276aef578000p-5},
    {0x1.e01e009609a56p-1, 0x1.07598e598c000p-4},  {0x1.dca01e577bb98p-1, 0x1.253f5e30d2000p-4},
    {0x1.d92f20b7c9103p-1, 0x1.42edd8b380000p-4},  {0x1.d5cac66fb5ccep-1, 0x1.606598757c000p-4},
    {0x1.d272caa5ede9dp-1, 0x1.7da76356a0000p-4},  {0x1.cf26e3e6b2ccdp-1, 0x1.9ab434e1c6000p-4},
    {0x1.cbe6da2a77902p-1, 0x1.b78c7bb0d6000p-4},  {0x1.c8b266d37086dp-1, 0x1.d431332e72000p-4},
    {0x1.c5894bd5d5804p-1, 0x1.f0a3171de6000p-4},  {0x1.c26b533bb9f8cp-1, 0x1.067152b914000p-3},
    {0x1.bf583eeece73fp-1, 0x1.147858292b000p-3},  {0x1.bc4fd75db96c1p-1, 0x1.2266ecdca3000p-3},
    {0x1.b951e0c864a28p-1, 0x1.303d7a6c55000p-3},  {0x1.b65e2c5ef3e2cp-1, 0x1.3dfc33c331000p-3},
    {0x1.b374867c9888bp-1, 0x1.4ba366b7a8000p-3},  {0x1.b094b211d304ap-1, 0x1.5933928d1f000p-3},
    {0x1.adbe885f2ef7ep-1, 0x1.66acd2418f000p-3},  {0x1.aaf1d31603da2p-1, 0x1.740f8ec669000p-3},
    {0x1.a82e63fd358a7p-1, 0x1.815c0f51af000p-3},  {0x1.a5740ef09738bp-1, 0x1.8e92954f68000p-3},
    {0x1.a2c2a90ab4b27p-1, 0x1.9bb3602f84000p-3},  {0x1.a01a01393f2d1p-1, 0x1.a8bed1c2c0000p-3},
    {0x1.9d79f24db3c1bp-1, 0x1.b5b515c01d000p-3},  {0x1.9ae2505c7b190p-1, 0x1.c2967ccbcc000p-3},
    {0x1.9852ef297ce2fp-1, 0x1.cf635d5486000p-3},  {0x1.95cbaeea44b75p-1, 0x1.dc1bd3446c000p-3},
    {0x1.934c69de74838p-1, 0x1.e8c01b8cfe000p-3},  {0x1.90d4f2f6752e6p-1, 0x1.f5509c0179000p-3},
    {0x1.8e6528effd79dp-1, 0x1.00e6c121fb800p-2},  {0x1.8bfce9fcc007cp-1, 0x1.071b80e93d000p-2},
    {0x1.899c0dabec30ep-1, 0x1.0d46b9e867000p-2},  {0x1.87427aa2317fbp-1, 0x1.13687334bd000p-2},
    {0x1.84f00acb39a08p-1, 0x1.1980d67234800p-2},  {0x1.82a49e8653e55p-1, 0x1.1f8ffe0cc8000p-2},
    {0x1.8060195f40260p-1, 0x1.2595fd7636800p-2},  {0x1.7e22563e0a329p-1, 0x1.2b9300914a800p-2},
    {0x1.7beb377dcb5adp-1, 0x1.3187210436000p-2},  {0x1.79baa679725c2p-1, 0x1.377266dec1800p-2},
    {0x1.77907f2170657p-1, 0x1.3d54ffbaf3000p-2},  {0x1.756cadbd6130cp-1, 0x1.432eee32fe000p-2},
};

// The FMA build of glibc's log, x positive, normal and finite. Near 1 (x in
// [1 - 2^-4, 1 + 0x1.09p-4)): r = x - 1 and a polynomial, with r^2/2 split exactly through
// rhi (r rounded to 26 bits, so rhi^2/2 is exact); elsewhere x = 2^k z with z near the centre
// c of one of 128 subintervals, log(x) = k ln 2 + log(c) + log(1 + r), r = z/c - 1 by one fma.
[[nodiscard]] constexpr double glibc_log_near_one(double x) noexcept {
  const double r = x - 1.0, r2 = r * r, r3 = r * r2, q1 = fused(r, log_b[2], log_b[1]).value,
               q4 = fused(r, log_b[5], log_b[4]).value, q7 = fused(r, log_b[8], log_b[7]).value,
               q3 = fused(r2, log_b[3], q1).value, q6 = fused(r2, log_b[6], q4).value,
               q9 = fused(r2, log_b[9], q7).value, q10 = fused(r3, log_b[10], q9).value,
               q = fused(fused(q10, r3, q6).value, r3, q3).value, w = r * 0x1p27, rhi = r + w - w, rlo = r - rhi,
               half_sq = rhi * rhi * log_b[0], hi = r + half_sq, lo = (r - hi) + half_sq,
               lo2 = fused(log_b[0] * rlo, rhi + r, lo).value;
  return x == 1.0 ? 0.0 : hi + fused(r3, q, lo2).value;
}

[[nodiscard]] constexpr double glibc_log_table(std::uint64_t ix) noexcept {
  const std::uint64_t tmp = ix - 0x3fe6'0000'0000'0000ULL;
  const log_entry& t = log_table[(tmp >> 45) % 128];
  const double k = static_cast<double>(static_cast<std::int64_t>(tmp) >> 52),
               r = fused(__builtin_bit_cast(double, ix - (tmp & 0xfff0'0000'0000'0000ULL)), t.invc, -1.0).value,
               w = k * log_ln2hi + t.logc, hi = w + r, lo = fused(k, log_ln2lo, (w - hi) + r).value, r2 = r * r,
               a12 = fused(r, log_a[2], log_a[1]).value, a34 = fused(r, log_a[4], log_a[3]).value,
               lo2 = fused(r2, log_a[0], lo).value, poly = fused(a34, r2, a12).value;
  return fused(r * r2, poly, lo2).value + hi;
}

[[nodiscard]] constexpr double glibc_log(double x) noexcept {
  return __builtin_bit_cast(std::uint64_t, x) - 0x3fee'0000'0000'0000ULL < 0x0003'0900'0000'0000ULL
             ? glibc_log_near_one(x)
             : glibc_log_table(__builtin_bit_cast(std::uint64_t, x));
}

// usncs.h's and s_sin.c's constants.
inline constexpr double sin_s1 = -0x1.5555555555555p-3, sin_s2 = 0x1.1111111110ecep-7, sin_s3 = -0x1.a01a019db08b8p-13,
                        sin_s4 = 0x1.71de27b9a7ed9p-19, sin_s5 = -0x1.addffc2fcdf59p-26;
inline constexpr double sn3 = -0x1.5555555555515p-3, sn5 = 0x1.11110e829872fp-7;
inline constexpr double cs2 = 0.5, cs4 = -0x1.5555555555535p-5, cs6 = 0x1.6c16bedd9e239p-10;
inline constexpr double big = 0x1.8p45;  // big + |x| rounds |x| to a multiple of 1/128
inline constexpr double hp0 = 0x1.921fb54442d18p0, hp1 = 0x1.1a62633145c07p-54;  // pi/2 = hp0 + hp1
inline constexpr double hpinv = 0x1.45f306dc9c883p-1, toint = 0x1.8p52;
inline constexpr double mp1 = 0x1.921fb58000000p0, mp2 = -0x1.dde973c000000p-27;  // short: xn * mp is exact
inline constexpr double pp3 = -0x1.cb3b398000000p-55, pp4 = -0x1.d747f23e32ed7p-83;
inline constexpr double two_pi_d = 0x1.921fb54442d18p+2;  // 2.0f * c10::pi<double>

struct sin_cos_d {
  double sin;
  double cos;
};

// sin(x + dx) for |x| < 0.126: Taylor, x + x^3 P(x^2) + (1 - x^2/2) dx.
[[nodiscard]] constexpr double sin_taylor(double x, double dx) noexcept {
  const double xx = x * x, p4 = fused(sin_s5, xx, sin_s4).value, p3 = fused(p4, xx, sin_s3).value,
               p2 = fused(p3, xx, sin_s2).value, p1 = fused(p2, xx, sin_s1).value, t = fused(p1, x, -(0.5 * dx)).value;
  return x + fused(t, xx, dx).value;
}

// sin(x + dx) for 0.126 <= |x| < 0.86 (do_sin's table branch): |x| = k/128 + xr, then
// sin(k/128 + xr) from the table's sin and cos of k/128 and short polynomials in xr.
[[nodiscard]] constexpr double sin_table(double x, double dx) noexcept {
  const double ax = x < 0.0 ? -x : x, u = big + ax;
  const sincos_entry& t = sincos_table[__builtin_bit_cast(std::uint64_t, u) & 0xffff'ffffU];
  const double xr = ax - (u - big), xx = xr * xr, d = x <= 0.0 ? -dx : dx,
               s = xr + fused(xr * xx, fused(xx, sn5, sn3).value, d).value,
               c = fused(xr, d, xx * fused(xx, fused(xx, cs6, cs4).value, cs2).value).value,
               v = t.sn + fused(t.cs, s, fused(-t.sn, c, fused(s, t.ccs, t.ssn).value).value).value;
  return x < 0.0 ? -v : v;  // copysign(v, x), v > 0
}

// glibc's do_sin: Taylor below 0.126, the table above.
[[nodiscard]] constexpr double do_sin(double x, double dx) noexcept {
  return (x < 0.0 ? -x : x) < 0.126 ? sin_taylor(x, dx) : sin_table(x, dx);
}

// cos(x + dx) for |x| < 0.86 (glibc's do_cos).
[[nodiscard]] constexpr double do_cos(double x, double dx) noexcept {
  const double ax = x < 0.0 ? -x : x, u = big + ax;
  const sincos_entry& t = sincos_table[__builtin_bit_cast(std::uint64_t, u) & 0xffff'ffffU];
  const double xr = (ax - (u - big)) + (x < 0.0 ? -dx : dx), xx = xr * xr,
               s = fused(xr * xx, fused(xx, sn5, sn3).value, xr).value,
               c = xx * fused(xx, fused(xx, cs6, cs4).value, cs2).value;
  return t.cs + fused(-t.sn, s, fused(-t.cs, c, fused(-s, t.ssn, t.ccs).value).value).value;
}

// 0.855469 <= |x| < 2.426265: pi/2 - |x| = a + da in double-double.
[[nodiscard]] constexpr sin_cos_d sincos_mid(double x) noexcept {
  const double y = hp0 - (x < 0.0 ? -x : x), a = y + hp1, da = (y - a) + hp1, c = do_cos(a, da);
  return {x < 0.0 ? -c : c, do_sin(a, da)};
}

// 2.426265 <= |x| < 105414350: x = n pi/2 + a + da (reduce_sincos), then by quadrant n mod 4:
// a + da negated for n = 1 or 2, sin and cos swapped for odd n, the cosine negated for n = 2, 3.
[[nodiscard]] constexpr sin_cos_d sincos_reduced(double x) noexcept {
  const double t = fused(x, hpinv, toint).value, xn = t - toint, y = (x - xn * mp1) - xn * mp2, t2 = y - xn * pp3,
               b = fused(-xn, pp4, t2).value, db = ((y - t2) - xn * pp3) + fused(-xn, pp4, t2 - b).value;
  const std::uint64_t n = __builtin_bit_cast(std::uint64_t, t) & 3U;
  const double a = n == 1 || n == 2 ? -b : b, da = n == 1 || n == 2 ? -db : db, s = do_sin(a, da), c = do_cos(a, da),
               c2 = (n & 2U) != 0 ? -c : c;
  return (n & 1U) != 0 ? sin_cos_d{c2, s} : sin_cos_d{s, c2};
}

// glibc's sincos for |x| < 105414350, by the high word of |x|: below 2^-27 sin = x and cos = 1;
// below 0.855469 directly; below 2.426265 from pi/2 - |x|; above, after reduction.
[[nodiscard]] constexpr sin_cos_d glibc_sincos(double x) noexcept {
  const std::uint64_t k = (__builtin_bit_cast(std::uint64_t, x) >> 32) & 0x7fff'ffffU;
  return k < 0x3e40'0000U   ? sin_cos_d{x, 1.0}
         : k < 0x3feb'6000U ? sin_cos_d{do_sin(x, 0.0), do_cos(x, 0.0)}
         : k < 0x4003'68fdU ? sincos_mid(x)
                            : sincos_reduced(x);
}

// One element pair of normal_fill_16<double>, first[0] and first[8]: u1 = 1 - first[0],
// r = sqrt(-2 log u1), theta = 2 pi first[8]; first[0] = r cos(theta) * std + mean and
// first[8] = r sin(theta) * std + mean, each one FMA.
constexpr void box_muller_glibc(double* first, double mean, double std_dev) noexcept {
  const sin_cos_d sc = glibc_sincos(two_pi_d * first[8]);
  const double radius = sqrt_d(-2.0 * glibc_log(1.0 - first[0]));
  first[0] = fused(radius * sc.cos, std_dev, mean).value;
  first[8] = fused(radius * sc.sin, std_dev, mean).value;
}

// at::normal_distribution<double>'s pair from its two uniforms, the first drawn giving the
// angle and the second the radius: {r sin(theta), r cos(theta)}.
[[nodiscard]] constexpr sin_cos_d box_muller_pair(double u_angle, double u_radius) noexcept {
  const sin_cos_d sc = glibc_sincos(two_pi_d * u_angle);
  const double radius = sqrt_d(-2.0 * glibc_log(1.0 - u_radius));
  return {radius * sc.sin, radius * sc.cos};
}

// Box-Muller on one block of 16 (pass std::make_index_sequence<8>): j pairs with j + 8.
template <std::size_t... J>
constexpr void box_muller_16(float* block, float mean, float std_dev, std::index_sequence<J...>) noexcept {
  (box_muller_avx2(block + J, mean, std_dev), ...);
}
template <std::size_t... J>
constexpr void box_muller_16(double* block, double mean, double std_dev, std::index_sequence<J...>) noexcept {
  (box_muller_glibc(block + J, mean, std_dev), ...);
}

}  // namespace static_attention::detail::torch_normal

SA_DETAIL_MATH_END
#if defined(__clang__)
#pragma float_control(pop)
#endif
