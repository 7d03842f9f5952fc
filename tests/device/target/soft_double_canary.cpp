// SPDX-License-Identifier: BSL-1.0
// The canary of the soft-double check (tests/device/check_soft_double.cmake): float code that
// goes through double, as float code must not. On a single-precision FPU (or none) each line is a
// call to a soft-double routine: the check must name them, or it would prove nothing.
#include <cmath>

float through_double(float x, float y) {
  const double wide = static_cast<double>(x) * static_cast<double>(y) + 0.1;  // __aeabi_f2d, dmul, dadd
  return static_cast<float>(std::sqrt(wide));                                 // sqrt, __aeabi_d2f
}

float libm_float(float x) { return std::sqrt(x) + std::exp(x); }  // sqrtf (errno path), expf
