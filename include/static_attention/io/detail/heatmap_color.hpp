// SPDX-License-Identifier: BSL-1.0
// The colours of a heatmap: viridis, the value scale, and their text for SVG and terminals.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include <static_attention/core/matrix.hpp>

namespace static_attention::detail::heatmap {

struct rgb {
  std::uint8_t r, g, b;
};

// Viridis (matplotlib's default colour map) at eleven evenly spaced points; colours between them
// are interpolated linearly, which keeps the table short and the scale smooth.
inline constexpr std::array<rgb, 11> viridis_points{{{0x44, 0x01, 0x54},
                                                     {0x48, 0x24, 0x75},
                                                     {0x41, 0x44, 0x87},
                                                     {0x35, 0x5f, 0x8d},
                                                     {0x2a, 0x78, 0x8e},
                                                     {0x21, 0x91, 0x8c},
                                                     {0x22, 0xa8, 0x84},
                                                     {0x44, 0xbf, 0x70},
                                                     {0x7a, 0xd1, 0x51},
                                                     {0xbd, 0xdf, 0x26},
                                                     {0xfd, 0xe7, 0x25}}};
// Cells whose value is -inf, inf or nan.
inline constexpr rgb nonfinite_fill{0xd9, 0xd9, 0xd9};

constexpr rgb viridis(double t) noexcept {
  t = (t >= 0.0 ? (t <= 1.0 ? t : 1.0) : 0.0) * 10.0;  // NaN counts as 0
  const auto k = std::min(static_cast<std::size_t>(t), std::size_t{9});
  const double f = t - static_cast<double>(k);
  const auto mix = [f](std::uint8_t a, std::uint8_t b) {
    return static_cast<std::uint8_t>(static_cast<double>(a) + (static_cast<double>(b) - static_cast<double>(a)) * f +
                                     0.5);
  };
  const rgb lo = viridis_points[k], hi = viridis_points[k + 1];
  return {mix(lo.r, hi.r), mix(lo.g, hi.g), mix(lo.b, hi.b)};
}

// Dark text on the bright end of the scale, white on the dark end.
constexpr bool is_light(rgb c) noexcept { return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b > 150.0; }

// Maps finite values onto [0, 1]: the options' bounds, else the finite values' range (scale_of).
// lo and hi are finite, lo <= hi.
//
// No lambdas, and no constructor templates, in the templates of this header: GCC's -Wshadow would
// flag their names against a user's globals of the same names.
struct scale {
  double lo = 0, hi = 1;

  double position(double v) const noexcept {
    // A constant matrix has no range: every cell gets the top of the scale.
    if (!(hi > lo)) return 1.0;
    // In halves, so that a range as wide as the doubles (-1e308 to 1e308) does not overflow.
    const double t = (v / 2 - lo / 2) / (hi / 2 - lo / 2);
    return t >= 0.0 ? (t <= 1.0 ? t : 1.0) : 0.0;  // NaN (a subnormal range) counts as 0
  }
  // Never overflows: each term is at most |lo| or |hi|.
  double value_at(double t) const noexcept { return lo * (1.0 - t) + hi * t; }
};

// The scale, or nothing if the options are invalid: a bound that is not finite, or
// scale_min > scale_max. A single bound beyond the data gives a scale of one value.
template <class T, std::size_t R, std::size_t C>
std::optional<scale> scale_of(const matrix<T, R, C>& m, std::optional<double> min, std::optional<double> max) {
  if ((min && !std::isfinite(*min)) || (max && !std::isfinite(*max)) || (min && max && *min > *max))
    return std::nullopt;
  bool any = false;
  double data_lo = 0, data_hi = 0;
  for (const T& v : m) {
    const auto x = static_cast<double>(v);
    if (!std::isfinite(x)) continue;
    data_lo = any ? std::min(data_lo, x) : x;
    data_hi = any ? std::max(data_hi, x) : x;
    any = true;
  }
  scale sc{min.value_or(data_lo), max.value_or(data_hi)};
  if (sc.hi < sc.lo) {
    if (min)
      sc.hi = sc.lo;
    else
      sc.lo = sc.hi;
  }
  return sc;
}

inline std::string hex(rgb c) {
  constexpr char digits[] = "0123456789abcdef";
  std::string s = "#";
  for (const std::uint8_t v : {c.r, c.g, c.b}) {
    s += digits[v >> 4];
    s += digits[v & 0xf];
  }
  return s;
}

// The terminal's shading blocks, lightest to full: ░▒▓█.
inline constexpr std::array<std::string_view, 4> shades{"\u2591", "\u2592", "\u2593", "\u2588"};

// The block of a position on the scale (0 to 1; anything else, NaN included, is clamped).
inline std::string_view shade(double position) noexcept {
  const double level = position >= 0.0 ? position * 4 : 0.0;
  return shades[level < 3.0 ? static_cast<std::size_t>(level) : std::size_t{3}];
}

// The escape sequence setting the foreground ("38") or background ("48") to a 24-bit colour.
inline std::string ansi(std::string_view layer, rgb c) {
  return "\x1b[" + std::string(layer) + ";2;" + std::to_string(c.r) + ';' + std::to_string(c.g) + ';' +
         std::to_string(c.b) + 'm';
}

inline bool colorterm_says_truecolor() {
  const char* env = std::getenv("COLORTERM");  // NOLINT(concurrency-mt-unsafe): read once per call
  if (env == nullptr) return false;
  const std::string_view v(env);
  return v == "truecolor" || v == "24bit";
}

}  // namespace static_attention::detail::heatmap
