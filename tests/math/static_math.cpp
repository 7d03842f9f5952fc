// SPDX-License-Identifier: BSL-1.0
// Compile-only checks: the math functions in static_assert (type-level and constexpr truth).
#include <limits>
#include <type_traits>

#include "static_attention/core/math.hpp"

namespace sa = static_attention;

// --- result types follow the argument ----------------------------------------------------
static_assert(std::is_same_v<decltype(sa::exp(1.0f)), float>);
static_assert(std::is_same_v<decltype(sa::exp(1.0)), double>);
static_assert(std::is_same_v<decltype(sa::tanh(1.0f)), float>);
static_assert(std::is_same_v<decltype(sa::sqrt(1.0)), double>);

// --- values, correctly rounded where the reference is known -------------------------------
static_assert(sa::exp(0.0) == 1.0);
static_assert(sa::exp(1.0f) == 0x1.5bf0a8p+1f);  // e, correctly rounded to float
static_assert(sa::log(0x1.5bf0a8b145769p+1) == 1.0);
static_assert(sa::log(1.0f) == 0.0f);
static_assert(sa::sqrt(2.0) == 0x1.6a09e667f3bcdp+0);
static_assert(sa::sqrt(2.0f) == 0x1.6a09e6p+0f);
static_assert(sa::sqrt(0x1p-1074) == 0x1p-537);
static_assert(sa::tanh(0.0) == 0.0);
static_assert(sa::tanh(-std::numeric_limits<double>::infinity()) == -1.0);

// --- scaling by 1/sqrt(d_k), as attention uses it -----------------------------------------
static_assert(1.0 / sa::sqrt(64.0) == 0.125);
static_assert(sa::exp(sa::log(8.0)) > 7.999999999 && sa::exp(sa::log(8.0)) < 8.000000001);
