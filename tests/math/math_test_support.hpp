// SPDX-License-Identifier: BSL-1.0
// Shared helpers of the math tests: deterministic inputs, ULP measures, bit comparison.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "static_attention/core/math.hpp"

namespace sa_math_test {

// Raw bits of a float or double as an unsigned integer of the same width.
template <class T>
using uint_for = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;

template <class T>
constexpr uint_for<T> bits_of(T x) {
  return std::bit_cast<uint_for<T>>(x);
}

// splitmix64: tiny, constexpr, and good enough to spread inputs over a domain.
struct rng {
  std::uint64_t state;
  constexpr std::uint64_t next() {
    state += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi), from the top 53 bits.
  constexpr double uniform(double lo, double hi) {
    const double u = static_cast<double>(next() >> 11) * 0x1p-53;
    return lo + (hi - lo) * u;
  }
};

enum class fn { exp, log, sqrt, tanh };

// A random finite T with a uniformly random bit pattern below the exponent limit max_exp_field
// (biased), so every binade, subnormals included, is equally likely.
template <class T>
constexpr T random_bits(rng& r, unsigned max_exp_field, bool allow_negative) {
  using U = uint_for<T>;
  constexpr int mant_bits = std::numeric_limits<T>::digits - 1;
  const std::uint64_t v = r.next();
  const auto mant = static_cast<U>(v & ((std::uint64_t{1} << mant_bits) - 1));
  const auto expo = static_cast<U>((v >> 52) % (max_exp_field + 1));
  const U sign = allow_negative && (v >> 63) != 0 ? static_cast<U>(U{1} << (sizeof(T) * 8 - 1)) : U{0};
  return std::bit_cast<T>(static_cast<U>(sign | static_cast<U>(expo << mant_bits) | mant));
}

// The interesting range of each function, for uniform sampling.
template <class T>
constexpr double range_lo(fn f) {
  constexpr bool d = std::is_same_v<T, double>;
  switch (f) {
    case fn::exp:
      return d ? -746.0 : -104.0;
    case fn::log:
      return 0.0;
    case fn::sqrt:
      return 0.0;
    case fn::tanh:
      return d ? -23.0 : -11.0;
  }
  return 0.0;
}
template <class T>
constexpr double range_hi(fn f) {
  constexpr bool d = std::is_same_v<T, double>;
  switch (f) {
    case fn::exp:
      return d ? 710.0 : 89.0;
    case fn::log:
      return 4.0;
    case fn::sqrt:
      return 1e6;
    case fn::tanh:
      return d ? 23.0 : 11.0;
  }
  return 0.0;
}

// Input i of a deterministic sample: even i uniform over the interesting range, odd i a
// random bit pattern (all binades; for exp and tanh, magnitudes up to 2^11 / 2^6).
template <class T>
constexpr T sample_input(rng& r, fn f, std::size_t i) {
  constexpr bool d = std::is_same_v<T, double>;
  if (i % 2 == 0) {
    return static_cast<T>(r.uniform(range_lo<T>(f), range_hi<T>(f)));
  }
  const unsigned bias = d ? 1023U : 127U;
  const unsigned full = d ? 2046U : 254U;
  switch (f) {
    case fn::exp:
      return random_bits<T>(r, bias + (d ? 10U : 7U), true);
    case fn::tanh:
      return random_bits<T>(r, bias + 5U, true);
    case fn::log:
    case fn::sqrt:
      return random_bits<T>(r, full, false);
  }
  return T{};
}

// Special and boundary inputs, shared by every table.
template <class T>
constexpr std::array<T, 16> edge_inputs() {
  using L = std::numeric_limits<T>;
  return {T{0},
          -T{0},
          L::infinity(),
          -L::infinity(),
          L::quiet_NaN(),
          -L::quiet_NaN(),
          L::denorm_min(),
          -L::denorm_min(),
          L::min(),
          L::max(),
          -L::max(),
          T{1},
          -T{1},
          T{0.5},
          T{2},
          L::epsilon()};
}

template <class T>
constexpr T apply(fn f, T x) {
  namespace sa = static_attention;
  switch (f) {
    case fn::exp:
      return sa::exp(x);
    case fn::log:
      return sa::log(x);
    case fn::sqrt:
      return sa::sqrt(x);
    case fn::tanh:
      return sa::tanh(x);
  }
  return x;
}

// N inputs: the edge cases, then the deterministic sample.
template <class T, std::size_t N>
constexpr std::array<T, N> make_inputs(fn f, std::uint64_t seed) {
  std::array<T, N> in{};
  const auto edges = edge_inputs<T>();
  rng r{seed};
  for (std::size_t i = 0; i < N; ++i) {
    in[i] = i < edges.size() ? edges[i] : sample_input<T>(r, f, i);
  }
  return in;
}

// Results as raw bits, so the table compares NaNs too.
template <class T, std::size_t N>
constexpr std::array<uint_for<T>, N> result_bits(fn f, const std::array<T, N>& in) {
  std::array<uint_for<T>, N> out{};
  for (std::size_t i = 0; i < N; ++i) {
    out[i] = bits_of(apply(f, in[i]));
  }
  return out;
}

// Error of got in units in the last place of T at the reference value.
template <class T>
long double ulp_error(T got, long double ref) {
  if (std::isnan(ref)) {
    return std::isnan(got) ? 0.0L : 1e30L;
  }
  const T ref_t = static_cast<T>(ref);
  if (std::isinf(ref_t) || std::isinf(got)) {
    return got == ref_t ? 0.0L : 1e30L;
  }
  int e = 0;
  static_cast<void>(std::frexp(ref, &e));  // ref = m * 2^e, 0.5 <= |m| < 1
  e = e < std::numeric_limits<T>::min_exponent ? std::numeric_limits<T>::min_exponent : e;
  const long double ulp = std::ldexp(1.0L, e - std::numeric_limits<T>::digits);
  return std::fabs(static_cast<long double>(got) - ref) / ulp;
}

// Distance between two values of T in representable steps (0 when the bits agree).
template <class T>
std::uint64_t ulp_distance(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) {
    return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<std::uint64_t>::max();
  }
  // Map bits to a monotonic integer line: negatives reflected below zero.
  auto key = [](T v) {
    const auto u = static_cast<std::int64_t>(bits_of(v) & ~(uint_for<T>{1} << (sizeof(T) * 8 - 1)));
    return std::signbit(v) ? -u : u;
  };
  const std::int64_t ka = key(a);
  const std::int64_t kb = key(b);
  return static_cast<std::uint64_t>(ka > kb ? ka - kb : kb - ka);
}

// The long double reference of each function.
inline long double reference(fn f, long double x) {
  switch (f) {
    case fn::exp:
      return std::exp(x);
    case fn::log:
      return std::log(x);
    case fn::sqrt:
      return std::sqrt(x);
    case fn::tanh:
      return std::tanh(x);
  }
  return x;
}

}  // namespace sa_math_test
