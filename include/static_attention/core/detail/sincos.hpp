// SPDX-License-Identifier: BSL-1.0
// sin and cos of one double x in [0, 2 pi], together, correctly rounded in practice, in constexpr
// code with the same bits at compile time and at run time: the angle 2 pi u (u in [0, 1)) of
// Box-Muller in torch's double normal kernels (torch_normal.hpp).
//
// Written from the mathematics; the constants are generated from their definitions by
// tests/reference/gen_sincos_table.py.
//  1. Reduction: x = n pi/128 + r with n = round(x 128/pi) in [0, 256] and |r| <= pi/256 (plus
//     the rounding of x 128/pi). pi/128 = p1 + p2 + p3 to 2^-150, p1 and p2 of 45 bits so that
//     n p1 and n p2 are exact (n < 2^8, or 256). x - n p1 is exact: both are multiples of 2^-59
//     once x >= 2^-7 (below, n = 0) and their difference is below 2^-6. One TwoSum then gives
//     r as a double-double with an absolute error below 2^-149.
//  2. z = r^2 <= 2^-12.6; sin r = r + r z P(z) and cos r - 1 = z Q(z), P and Q the Taylor
//     series to 1/11! and 1/12! (the first terms left out are below 2^-110 |sin r| and 2^-105
//     |cos r - 1|). The leading coefficients and products are double-double, the small
//     high-order terms double: each step keeps the precision its size needs for 2^-100.
//  3. With n = 64 q + k (k in [0, 63]) and b = k pi/128 + r, from S = sin(k pi/128) and
//     C = cos(k pi/128) = sin((64 - k) pi/128), a table of 65 double-doubles:
//       sin b = S + (C sin r + S (cos r - 1)),  cos b = C + (C (cos r - 1) - S sin r);
//     b lies in [-pi/256, pi/2 - pi/256], so |sin b| and |cos b| are at least half the terms
//     summed (no cancellation), and sin x, cos x are +-sin b, +-cos b by the quadrant q.
//  4. The result hi + lo is normalised (Fast2Sum), so hi is its rounding to nearest.
// The double-double results are within 2^-100 of sin x and cos x, relatively (at most 2^-102.5
// measured on 5 10^4 angles against mpmath by tests/reference/check_normal_double.py --sincos),
// so hi is the correctly rounded value unless that lies within 2^-100 of a midpoint between two
// doubles: about one argument in 2^46.
//
// Constant-evaluation cost: Clang charges one step per statement and a constructor with an
// empty body one, so the double-double operations are classes computing in member initialisers
// and the kernels are few declarations with many declarators. FMA contraction is off throughout
// (GCC: optimize pragma; Clang: fp contract pragma for the whole file, member initialisers
// included): every product and sum is rounded on its own, as the exactness of TwoSum and
// Dekker's product requires.
#pragma once

#include <cstdint>

#include <static_attention/core/detail/math_common.hpp>

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention::detail::torch_normal {

// ---------------------------------------------------------------------------------------------
// Double-double arithmetic: a value is the unevaluated sum hi + lo, |lo| <= ulp(hi) or so.

struct dd {
  double hi, lo;
};

// a * b = p + e exactly (Dekker's product of Veltkamp's halves ah + (a - ah), bh + (b - bh));
// needs |a|, |b| < 2^995 and no underflow in e: true here (|e| > 2^-400).
struct two_prod {
  static constexpr double splitter = 0x1p27 + 1.0;
  double ah, bh, p, e;
  constexpr two_prod(double a, double b) noexcept
      : ah(splitter * a - (splitter * a - a)),
        bh(splitter * b - (splitter * b - b)),
        p(a * b),
        e(((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)) {}
};

// a b, normalised by Fast2Sum (v.hi = RN(v.hi + v.lo)); relative error below 2^-104 (the
// a.lo b.lo term and the roundings of the cross terms). Dekker's product of a.hi and b.hi is
// written out rather than held as a two_prod member: a member's constructor is one more step
// of Clang's constant evaluator.
struct dd_mul {
  static constexpr double splitter = 0x1p27 + 1.0;
  double ah, bh, p, lo;
  dd v;
  constexpr dd_mul(dd a, dd b) noexcept
      : ah(splitter * a.hi - (splitter * a.hi - a.hi)),
        bh(splitter * b.hi - (splitter * b.hi - b.hi)),
        p(a.hi * b.hi),
        lo((((ah * bh - p) + ah * (b.hi - bh) + (a.hi - ah) * bh) + (a.hi - ah) * (b.hi - bh)) +
           (a.hi * b.lo + a.lo * b.hi)),
        v{p + lo, lo - ((p + lo) - p)} {}
};

// a + b, normalised by Fast2Sum; the hi parts are summed exactly (TwoSum, written out), so the
// error is that of adding a.lo + b.lo: relative 2^-104 unless a and b nearly cancel (they never
// do here).
struct dd_add {
  double s, lo;
  dd v;
  constexpr dd_add(dd a, dd b) noexcept
      : s(a.hi + b.hi),
        lo(((a.hi - (s - (s - a.hi))) + (b.hi - (s - a.hi))) + (a.lo + b.lo)),
        v{s + lo, lo - ((s + lo) - s)} {}
};

// ---------------------------------------------------------------------------------------------
// Constants (tests/reference/gen_sincos_table.py).

// pi/128 = pi_128_1 + pi_128_2 + pi_128_3 (the first two of 45 bits), and 128/pi.
inline constexpr double pi_128_1 = 0x1.921fb54442d00p-6, pi_128_2 = 0x1.8469898cc5100p-54,
                        pi_128_3 = 0x1.c06e0e6894812p-100;
inline constexpr double inv_pi_128 = 0x1.45f306dc9c883p+5;

// sin(k pi/128) for k = 0..64, double-doubles (hi the double nearest, lo the double nearest the
// rest); cos(k pi/128) = sin_table[64 - k].
inline constexpr dd sin_table[65] = {
    {0.0, 0.0},                                      // k = 0
    {0x1.92155f7a3667ep-6, -0x1.b1d63091a0130p-64},  // k = 1
    {0x1.91f65f10dd814p-5, -0x1.912bd0d569a90p-61},  // k = 2
    {0x1.2d52092ce19f6p-4, -0x1.9a088a8bf6b2cp-59},  // k = 3
    {0x1.917a6bc29b42cp-4, -0x1.e2718d26ed688p-60},  // k = 4
    {0x1.f564e56a9730ep-4, 0x1.a2704729ae56dp-59},   // k = 5
    {0x1.2c8106e8e613ap-3, 0x1.13000a89a11e0p-58},   // k = 6
    {0x1.5e214448b3fc6p-3, 0x1.531ff779ddac6p-57},   // k = 7
    {0x1.8f8b83c69a60bp-3, -0x1.26d19b9ff8d82p-57},  // k = 8
    {0x1.c0b826a7e4f63p-3, -0x1.af1439e521935p-62},  // k = 9
    {0x1.f19f97b215f1bp-3, -0x1.42deef11da2c4p-57},  // k = 10
    {0x1.111d262b1f677p-2, 0x1.824c20ab7aa9ap-56},   // k = 11
    {0x1.294062ed59f06p-2, -0x1.5d28da2c4612dp-56},  // k = 12
    {0x1.4135c94176601p-2, 0x1.0c97c4afa2518p-56},   // k = 13
    {0x1.58f9a75ab1fddp-2, -0x1.efdc0d58cf620p-62},  // k = 14
    {0x1.7088530fa459fp-2, -0x1.44b19e0864c5dp-56},  // k = 15
    {0x1.87de2a6aea963p-2, -0x1.72cedd3d5a610p-57},  // k = 16
    {0x1.9ef7943a8ed8ap-2, 0x1.6da81290bdbabp-57},   // k = 17
    {0x1.b5d1009e15cc0p-2, 0x1.5b362cb974183p-57},   // k = 18
    {0x1.cc66e9931c45ep-2, 0x1.6850e59c37f8fp-58},   // k = 19
    {0x1.e2b5d3806f63bp-2, 0x1.e0d891d3c6841p-58},   // k = 20
    {0x1.f8ba4dbf89abap-2, -0x1.2ec1fc1b776b8p-60},  // k = 21
    {0x1.073879922ffeep-1, -0x1.a5a014347406cp-55},  // k = 22
    {0x1.11eb3541b4b23p-1, -0x1.ef23b69abe4f1p-55},  // k = 23
    {0x1.1c73b39ae68c8p-1, 0x1.b25dd267f6600p-55},   // k = 24
    {0x1.26d054cdd12dfp-1, -0x1.5da743ef3770cp-55},  // k = 25
    {0x1.30ff7fce17035p-1, -0x1.efcc626f74a6fp-57},  // k = 26
    {0x1.3affa292050b9p-1, 0x1.e3e25e3954964p-56},   // k = 27
    {0x1.44cf325091dd6p-1, 0x1.8076a2cfdc6b3p-57},   // k = 28
    {0x1.4e6cabbe3e5e9p-1, 0x1.3c293edceb327p-57},   // k = 29
    {0x1.57d69348ceca0p-1, -0x1.75720992bfbb2p-55},  // k = 30
    {0x1.610b7551d2cdfp-1, -0x1.251b352ff2a37p-56},  // k = 31
    {0x1.6a09e667f3bcdp-1, -0x1.bdd3413b26456p-55},  // k = 32
    {0x1.72d0837efff96p-1, 0x1.0d4ef0f1d915cp-55},   // k = 33
    {0x1.7b5df226aafafp-1, -0x1.0f537acdf0ad7p-56},  // k = 34
    {0x1.83b0e0bff976ep-1, -0x1.6f420f8ea3475p-56},  // k = 35
    {0x1.8bc806b151741p-1, -0x1.2c5e12ed1336dp-55},  // k = 36
    {0x1.93a22499263fbp-1, 0x1.3d419a920df0bp-55},   // k = 37
    {0x1.9b3e047f38741p-1, -0x1.30ee286712474p-55},  // k = 38
    {0x1.a29a7a0462782p-1, -0x1.128bb015df175p-56},  // k = 39
    {0x1.a9b66290ea1a3p-1, 0x1.9f630e8b6dac8p-60},   // k = 40
    {0x1.b090a58150200p-1, -0x1.926da300ffccep-55},  // k = 41
    {0x1.b728345196e3ep-1, -0x1.bc69f324e6d61p-55},  // k = 42
    {0x1.bd7c0ac6f952ap-1, -0x1.825a732ac700ap-55},  // k = 43
    {0x1.c38b2f180bdb1p-1, -0x1.6e0b1757c8d07p-56},  // k = 44
    {0x1.c954b213411f5p-1, -0x1.2fb761e946603p-58},  // k = 45
    {0x1.ced7af43cc773p-1, -0x1.e7b6bb5ab58aep-58},  // k = 46
    {0x1.d4134d14dc93ap-1, -0x1.4ef5295d25af2p-55},  // k = 47
    {0x1.d906bcf328d46p-1, 0x1.457e610231ac2p-56},   // k = 48
    {0x1.ddb13b6ccc23cp-1, 0x1.83c37c6107db3p-55},   // k = 49
    {0x1.e212104f686e5p-1, -0x1.014c76c126527p-55},  // k = 50
    {0x1.e6288ec48e112p-1, -0x1.16b56f2847754p-57},  // k = 51
    {0x1.e9f4156c62ddap-1, 0x1.760b1e2e3f81ep-55},   // k = 52
    {0x1.ed740e7684963p-1, 0x1.e82c791f59cc2p-56},   // k = 53
    {0x1.f0a7efb9230d7p-1, 0x1.52c7adc6b4989p-56},   // k = 54
    {0x1.f38f3ac64e589p-1, -0x1.d7bafb51f72e6p-56},  // k = 55
    {0x1.f6297cff75cb0p-1, 0x1.562172a361fd3p-56},   // k = 56
    {0x1.f8764fa714ba9p-1, 0x1.ab256778ffcb6p-56},   // k = 57
    {0x1.fa7557f08a517p-1, -0x1.7a0a8ca13571fp-55},  // k = 58
    {0x1.fc26470e19fd3p-1, 0x1.1ec8668ecaceep-55},   // k = 59
    {0x1.fd88da3d12526p-1, -0x1.87df6378811c7p-55},  // k = 60
    {0x1.fe9cdad01883ap-1, 0x1.521ecd0c67e35p-57},   // k = 61
    {0x1.ff621e3796d7ep-1, -0x1.c57bc2e24aa15p-57},  // k = 62
    {0x1.ffd886084cd0dp-1, -0x1.1354d4556e4cbp-55},  // k = 63
    {0x1.0000000000000p+0, 0.0},                     // k = 64
};

// Taylor coefficients: sin r = r (1 + z (-1/3! + z (1/5! + z (-1/7! + z (1/9! - z/11!))))) and
// cos r - 1 = z (-1/2 + z (1/4! + z (-1/6! + z (1/8! + z (-1/10! + z/12!))))), z = r^2.
inline constexpr dd sin_c1 = {-0x1.5555555555555p-3, -0x1.5555555555555p-57};  // -1/3!
inline constexpr dd sin_c2 = {0x1.1111111111111p-7, 0x1.1111111111111p-63};    // 1/5!
inline constexpr double sin_c3 = -0x1.a01a01a01a01ap-13, sin_c4 = 0x1.71de3a556c734p-19,
                        sin_c5 = -0x1.ae64567f544e4p-26;                       // -1/7!, 1/9!, -1/11!
inline constexpr dd cos_c2 = {0x1.5555555555555p-5, 0x1.5555555555555p-59};    // 1/4!
inline constexpr dd cos_c3 = {-0x1.6c16c16c16c17p-10, 0x1.f49f49f49f49fp-65};  // -1/6!
inline constexpr double cos_c4 = 0x1.a01a01a01a01ap-16, cos_c5 = -0x1.27e4fb7789f5cp-22,
                        cos_c6 = 0x1.1eed8eff8d898p-29;  // 1/8!, -1/10!, 1/12!

// ---------------------------------------------------------------------------------------------
// The kernel

struct sin_cosm1 {
  dd sin;    // sin r
  dd cosm1;  // cos r - 1
};

// sin r and cos r - 1 for |r| <= pi/256 + 2^-40 (step 2). Relative sizes of the terms of sin r
// (of cos r - 1): z/3! below 2^-15 (z/12 below 2^-16), z^2/5! below 2^-32 (z^2/360 below 2^-34),
// z^3/7! below 2^-50: the terms from 1/7! (1/8!) on are double, z (1/5! + ...) (z (-1/6! + ...))
// is a double product added to a double-double, the rest double-double throughout.
[[nodiscard]] constexpr sin_cosm1 sin_cosm1_small(dd r) noexcept {
  const two_prod rr(r.hi, r.hi);
  const dd z{rr.p, rr.e + 2.0 * r.hi * r.lo};
  const double s3 = sin_c3 + z.hi * (sin_c4 + z.hi * sin_c5), c4 = cos_c4 + z.hi * (cos_c5 + z.hi * cos_c6);
  const dd s2 = dd_add(sin_c2, {z.hi * s3, 0.0}).v, s1 = dd_add(sin_c1, dd_mul(z, s2).v).v,
           c3 = dd_add(cos_c3, {z.hi * c4, 0.0}).v, c2 = dd_add(cos_c2, dd_mul(z, c3).v).v,
           c1 = dd_add({-0.5, 0.0}, dd_mul(z, c2).v).v;
  return {dd_add(r, dd_mul(r, dd_mul(z, s1).v).v).v, dd_mul(z, c1).v};
}

struct sin_cos_dd {
  dd sin, cos;
};

// sin x and cos x for x in [0, 2 pi] (x = 0 or x >= 2^-300) as normalised double-doubles:
// x = n pi/128 + r (step 1), then sin b and cos b for b = k pi/128 + r, k = n mod 64 (step 3),
// and by the quadrant q = n / 64 mod 4 (sin b, cos b), (cos b, -sin b), (-sin b, -cos b) or
// (-cos b, sin b). The TwoSum of the reduction is written out (a statement less).
[[nodiscard]] constexpr sin_cos_dd sincos_dd(double x) noexcept {
  // shifted - round_shift is x 128/pi rounded to an integer, which also sits in shifted's low bits.
  const double shifted = x * inv_pi_128 + math::round_shift, nd = shifted - math::round_shift, a = x - nd * pi_128_1,
               b = -(nd * pi_128_2), s = a + b, tail = ((a - (s - (s - a))) + (b - (s - a))) - nd * pi_128_3;
  const std::uint32_t n = static_cast<std::uint32_t>(__builtin_bit_cast(std::uint64_t, shifted) -
                                                     __builtin_bit_cast(std::uint64_t, math::round_shift)),
                      k = n % 64, q = (n / 64) % 4;
  const sin_cosm1 p = sin_cosm1_small({s + tail, tail - ((s + tail) - s)});
  const dd &sk = sin_table[k], &ck = sin_table[64 - k],
           sb = dd_add(sk, dd_add(dd_mul(ck, p.sin).v, dd_mul(sk, p.cosm1).v).v).v,
           cb = dd_add(ck, dd_add(dd_mul(ck, p.cosm1).v, dd_mul({-sk.hi, -sk.lo}, p.sin).v).v).v;
  return q == 0   ? sin_cos_dd{sb, cb}
         : q == 1 ? sin_cos_dd{cb, {-sb.hi, -sb.lo}}
         : q == 2 ? sin_cos_dd{{-sb.hi, -sb.lo}, {-cb.hi, -cb.lo}}
                  : sin_cos_dd{{-cb.hi, -cb.lo}, sb};
}

struct sin_cos_d {
  double sin;
  double cos;
};

// sin x and cos x for x in [0, 2 pi] (x = 0 or x >= 2^-300), each the double nearest the
// double-double result.
[[nodiscard]] constexpr sin_cos_d sincos_0_2pi(double x) noexcept {
  const sin_cos_dd r = sincos_dd(x);
  return {r.sin.hi, r.cos.hi};
}

}  // namespace static_attention::detail::torch_normal

#include <static_attention/core/detail/math_end.hpp>
