// SPDX-License-Identifier: BSL-1.0
// int8 quantization, the integer part: affine parameters, rounding, fixed-point multipliers
// (TFLM's QuantizeMultiplier and MultiplyByQuantizedMultiplier, single rounding), per-channel
// int8 linear layers. Everything is constexpr; at run time nothing here touches a float except
// quantize_value and dequantize_value, the two ends of a model.
//
// Every intermediate's range is stated where it is computed. In constant evaluation a signed
// overflow is not a constant expression, so a static_assert over a quantized forward pass is also
// a proof that none of the overflows the comments rule out can happen on its inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/quant/detail/dsp_kernels.hpp>
#include <static_attention/quant/detail/mve_kernels.hpp>

namespace static_attention {

/// Per-tensor affine int8 quantization, as TFLM's: real = scale * (q - zero_point), q in
/// [-128, 127].
struct quant_params {
  /// Real value of one step.
  float scale = 1.0f;
  /// The int8 code of real 0 (always representable: calibration ranges include 0).
  std::int32_t zero_point = 0;

  friend constexpr bool operator==(const quant_params&, const quant_params&) = default;
};

/// A positive real multiplier as TFLM's QuantizeMultiplier gives it: multiplier * 2^(shift - 31),
/// multiplier in [2^30, 2^31) (or 0 for a multiplier of 0).
struct fixed_multiplier {
  std::int32_t multiplier = 0;
  std::int32_t shift = 0;

  friend constexpr bool operator==(const fixed_multiplier&, const fixed_multiplier&) = default;
};

namespace detail {

// Deliberately not constexpr: reaching it in constant evaluation stops the compiler with its
// name in the diagnostic (the library's pattern for value errors, see index_check.hpp).
inline void quantize_multiplier_out_of_range(double) noexcept {}
inline void quantized_bias_out_of_range(double) noexcept {}

inline constexpr std::int32_t int8_min = -128;
inline constexpr std::int32_t int8_max = 127;
/// Symmetric weights use [-127, 127], as TFLM's (so that -w is representable).
inline constexpr std::int32_t weight_max = 127;

/// Round half away from zero (std::round's rule, TFLM's), constexpr: the truncation to I and
/// x - trunc(x) are exact in binary floating point for |x| below I's range.
template <class I, class F>
constexpr I round_half_away(F x) noexcept {
  const auto t = static_cast<I>(x);
  const F frac = x - static_cast<F>(t);
  if (frac >= F{0.5}) return t + 1;
  if (frac <= F{-0.5}) return t - 1;
  return t;
}
/// For double, |x| < 2^62.
constexpr std::int64_t round_away(double x) noexcept { return round_half_away<std::int64_t>(x); }
/// For float, |x| <= 2^30 (callers clamp first).
constexpr std::int32_t round_away(float x) noexcept { return round_half_away<std::int32_t>(x); }

constexpr std::int32_t clamp_i32(std::int64_t v, std::int32_t lo, std::int32_t hi) noexcept {
  return static_cast<std::int32_t>(v < lo ? lo : (v > hi ? hi : v));
}

constexpr double abs_d(double x) noexcept { return x < 0 ? -x : x; }

/// TFLM's QuantizeMultiplier: real = multiplier * 2^(shift - 31). Requires 2^-31 <= real < 2^30
/// (or real == 0); outside that a constant evaluation stops here.
constexpr fixed_multiplier quantize_multiplier(double real) noexcept {
  if (real == 0.0) return {};
  if (!(real >= 0x1p-31 && real < 0x1p30)) {
    quantize_multiplier_out_of_range(real);
    return {};
  }
  std::int32_t shift = 0;
  double m = real;
  while (m < 0.5) {
    m *= 2.0;  // exact
    --shift;
  }
  while (m >= 1.0) {
    m /= 2.0;  // exact
    ++shift;
  }
  std::int64_t q = round_away(m * 0x1p31);  // in [2^30, 2^31]
  if (q == (std::int64_t{1} << 31)) {
    q /= 2;
    ++shift;
  }
  return {static_cast<std::int32_t>(q), shift};
}

/// The real value a fixed_multiplier stands for (compile time: reports and bounds).
constexpr double multiplier_value(fixed_multiplier m) noexcept {
  double v = static_cast<double>(m.multiplier);
  for (std::int32_t s = m.shift - 31; s < 0; ++s) v /= 2.0;
  for (std::int32_t s = m.shift - 31; s > 0; --s) v *= 2.0;
  return v;
}

/// round(acc * multiplier * 2^(shift - 31)), halves rounded up: TFLM's MultiplyByQuantizedMultiplier
/// in its single-rounding form (TFLITE_SINGLE_ROUNDING), as an int64.
/// Range: |acc| <= 2^31 and multiplier < 2^31, so |acc * multiplier| < 2^62 and the rounding
/// term (<= 2^61) cannot overflow; shift in [-31, 30] keeps the right shift in [1, 62].
constexpr std::int64_t multiply_by_quantized_multiplier(std::int64_t acc, fixed_multiplier m) noexcept {
  const std::int32_t right = 31 - m.shift;
  const std::int64_t product = acc * m.multiplier;
  return (product + (std::int64_t{1} << (right - 1))) >> right;  // arithmetic shift (C++20)
}

/// multiply_by_quantized_multiplier(acc, m) for an int32 acc, saturated to [-2^30, 2^30]: the same
/// value wherever the callers' own saturation (int8, int16, the softmax's exponent floor) lies
/// within. In 32-bit arithmetic when the right shift is 32 or more (real multipliers below
/// 2^-1): with p = acc * multiplier and q = floor(p / 2^31) (|p| < 2^62, so |q| < 2^31),
/// floor((p + 2^(r-1)) / 2^r) = ((q >> (r - 32)) + 1) >> 1. (A floor of a floor: it is
/// floor((floor(p / 2^(r-1)) + 1) / 2), and floor(p / 2^(r-1)) = q >> (r - 32).) One shift pair
/// for every r >= 32, where the form before it built 2^(r-33) and took r = 32 apart; checked
/// against it on 2.6e8 accumulators, multipliers and shifts, with their edges.
constexpr std::int32_t scale_saturated(std::int32_t acc, fixed_multiplier m) noexcept {
  const std::int32_t right = 31 - m.shift;
  const std::int64_t product = std::int64_t{acc} * m.multiplier;
  if (right >= 32) {
    const auto q = static_cast<std::int32_t>(product >> 31);  // floor(p / 2^31)
    return ((q >> (right - 32)) + 1) >> 1;
  }
  return clamp_i32((product + (std::int64_t{1} << (right - 1))) >> right, -(1 << 30), 1 << 30);
}

/// acc requantized to int8: zero_point + acc * m, saturated to [-128, 127].
constexpr std::int8_t requantize_int8(std::int32_t acc, fixed_multiplier m, std::int32_t zero_point) noexcept {
  const std::int32_t v = scale_saturated(acc, m) + zero_point;  // |zero_point| <= 128
  return static_cast<std::int8_t>(v < int8_min ? int8_min : (v > int8_max ? int8_max : v));
}

/// x as int8: round(x * inv_scale) + zero_point, saturated. The product is rounded on its own
/// (never fused into the subtraction of round_away), so both worlds agree; a NaN gives -128.
constexpr std::int8_t quantize_value(float x, float inv_scale, std::int32_t zero_point) noexcept {
  float y = rounded_product(x, inv_scale);
  if (!(y > -512.0f)) y = -512.0f;  // also NaN
  if (y > 512.0f) y = 512.0f;
  return static_cast<std::int8_t>(clamp_i32(std::int64_t{round_away(y)} + zero_point, int8_min, int8_max));
}

/// acc * scale as float: one conversion (exact for |acc| < 2^24) and one product, rounded on its
/// own so that nothing the caller adds can fuse with it.
constexpr float dequantize_value(std::int32_t acc, float scale) noexcept {
  return rounded_product(static_cast<float>(acc), scale);
}

// sum over k < K of a[k] b[k] as int32 (int8 or int16 operands): one fold expression per 64
// products, so that Clang's constexpr budget counts one step per chunk (as matmul_kernel does).
template <class A, class B, std::size_t... Ks>
constexpr std::int32_t dot_chunk(const A* a, const B* b, std::index_sequence<Ks...>) noexcept {
  return (std::int32_t{0} + ... + (std::int32_t{a[Ks]} * std::int32_t{b[Ks]}));
}
template <std::size_t K, class A, class B>
constexpr std::int32_t dot_int(const A* a, const B* b) noexcept {
  constexpr std::size_t chunk = 64;
  std::int32_t acc = 0;
  std::size_t k = 0;
  for (; k + chunk <= K; k += chunk) acc += dot_chunk(a + k, b + k, std::make_index_sequence<chunk>{});
  if constexpr (K % chunk != 0) acc += dot_chunk(a + k, b + k, std::make_index_sequence<K % chunk>{});
  return acc;
}

// Not constexpr: reaching it in constant evaluation stops quantize() with this name.
inline void calibration_range_has_zero_width_calibrate_on_data_that_exercises_the_model(double /*lo*/,
                                                                                        double /*hi*/) noexcept {}

/// Affine parameters for the real range [lo, hi], widened to include 0, as TFLM's converter
/// chooses them: scale = (hi - lo) / 255, zero_point = round(-128 - lo / scale). A range of zero
/// width (calibration that saw only zeros there) has no scale to choose: a compile error in
/// constant evaluation; at run time the scale is NaN, so every output of the model is NaN, never
/// a plausible value from a guessed scale.
constexpr quant_params choose_params(double lo, double hi) noexcept {
  if (lo > 0.0) lo = 0.0;
  if (hi < 0.0) hi = 0.0;
  if (!(hi - lo >= 1e-30)) {
    if (std::is_constant_evaluated())
      calibration_range_has_zero_width_calibrate_on_data_that_exercises_the_model(lo, hi);
    return {std::numeric_limits<float>::quiet_NaN(), 0};
  }
  const auto scale = static_cast<float>((hi - lo) / 255.0);
  const double s = static_cast<double>(scale);
  const std::int64_t z = round_away(-128.0 - lo / s);
  return {scale, clamp_i32(z, int8_min, int8_max)};
}

/// 1 / scale as float (rounded once), for quantize_value.
constexpr float inverse(float scale) noexcept { return static_cast<float>(1.0 / static_cast<double>(scale)); }

}  // namespace detail

/// A linear layer with int8 weights, symmetric per output channel, and int32 biases, in
/// TFLM's fully-connected layout (Out x In: output channel j's weights contiguous). Its
/// accumulator for input codes x (zero point z_x) is
///   acc_j = bias_j + sum_k x_k w_jk,  bias_j = round(b_j / (s_x s_wj)) - z_x sum_k w_jk,
/// the input zero point folded into the bias once, as CMSIS-NN's kernel sums do.
/// Range: every partial sum of x_k w_jk is within 128 * 127 * In, the real bias's code within
/// 2^30 (checked when quantizing) and the folded z_x sum_k w_jk within 128 * 127 * In, so with
/// In <= 32768 every intermediate of acc_j is within 2^30 + 2 * 128 * 127 * 32768 < 2^31.
template <std::size_t In, std::size_t Out>
struct quantized_linear {
  static_assert(In <= 32768, "quantized_linear<In, Out> requires In <= 32768 (int32 accumulators)");
  /// int8 codes, Out x In.
  matrix<std::int8_t, Out, In> weight;
  /// Per-channel int32 biases, input zero point folded in.
  matrix<std::int32_t, 1, Out> bias;

  /// Accumulators for one row of input codes (acc: Out of them). At run time, with Helium,
  /// VMLADAVA kernels (quant/detail/mve_kernels.hpp), else with the DSP extension SMLAD kernels
  /// (quant/detail/dsp_kernels.hpp): the same bits.
  constexpr void accumulate(const std::int8_t* x, std::int32_t* acc) const noexcept {
#if defined(__ARM_FEATURE_MVE)
    if (!std::is_constant_evaluated()) return detail::mve::linear_row<In, Out>(x, weight.elems, bias.elems, acc);
#elif defined(__ARM_FEATURE_DSP)
    if (!std::is_constant_evaluated()) return detail::dsp::linear_row<In, Out>(x, weight.elems, bias.elems, acc);
#endif
    for (std::size_t j = 0; j < Out; ++j) acc[j] = bias.elems[j] + detail::dot_int<In>(x, weight.elems + j * In);
  }

  /// Accumulators for `rows` rows of input codes (x: rows x In, acc: rows x Out): accumulate row
  /// by row, the same bits; with the DSP extension two rows share each weight load (Helium's
  /// kernel goes row by row: mve_kernels.hpp says why).
  constexpr void accumulate_rows(const std::int8_t* x, std::size_t rows, std::int32_t* acc) const noexcept {
#if defined(__ARM_FEATURE_MVE)
    if (!std::is_constant_evaluated()) return detail::mve::linear_rows<In, Out>(x, rows, weight.elems, bias.elems, acc);
#elif defined(__ARM_FEATURE_DSP)
    if (!std::is_constant_evaluated()) return detail::dsp::linear_rows<In, Out>(x, rows, weight.elems, bias.elems, acc);
#endif
    for (std::size_t i = 0; i < rows; ++i) accumulate(x + i * In, acc + i * Out);
  }

  friend constexpr bool operator==(const quantized_linear&, const quantized_linear&) = default;
};

/// Per-channel requantization of a quantized_linear's accumulators to int8: multiplier j is
/// s_x s_wj / s_y.
template <std::size_t Out>
struct requantizer {
  matrix<std::int32_t, 1, Out> multiplier;
  matrix<std::int8_t, 1, Out> shift;
  std::int32_t zero_point = 0;

  constexpr std::int8_t operator()(std::int32_t acc, std::size_t j) const noexcept {
    return detail::requantize_int8(acc, {multiplier.elems[j], shift.elems[j]}, zero_point);
  }

  friend constexpr bool operator==(const requantizer&, const requantizer&) = default;
};

namespace detail {

/// Symmetric per-channel quantization of an x @ W weight (In x Out, column j = channel j) and its
/// bias row (nullptr: none) for inputs of scale s_x and zero point z_x. Writes each channel's
/// scale s_wj = max_k |W_kj| / 127 (1 for an all-zero channel) to channel_scale.
template <std::size_t In, std::size_t Out>
constexpr ::static_attention::quantized_linear<In, Out> quantize_linear(const matrix<float, In, Out>& w,
                                                                        const matrix<float, 1, Out>* b,
                                                                        quant_params input,
                                                                        double (&channel_scale)[Out]) noexcept {
  ::static_attention::quantized_linear<In, Out> q;
  for (std::size_t j = 0; j < Out; ++j) {
    double peak = 0.0;
    for (std::size_t k = 0; k < In; ++k) {
      const double a = abs_d(static_cast<double>(w.elems[k * Out + j]));
      if (a > peak) peak = a;
    }
    const double s = peak > 0.0 ? peak / weight_max : 1.0;
    channel_scale[j] = s;
    std::int64_t weight_sum = 0;
    for (std::size_t k = 0; k < In; ++k) {
      const std::int32_t code =
          clamp_i32(round_away(static_cast<double>(w.elems[k * Out + j]) / s), -weight_max, weight_max);
      q.weight.elems[j * In + k] = static_cast<std::int8_t>(code);
      weight_sum += code;
    }
    const double real_bias = b != nullptr ? static_cast<double>(b->elems[j]) : 0.0;
    const double bias_code = real_bias / (static_cast<double>(input.scale) * s);
    if (!(abs_d(bias_code) < 0x1p30)) quantized_bias_out_of_range(bias_code);
    const std::int64_t folded = round_away(bias_code) - std::int64_t{input.zero_point} * weight_sum;
    q.bias.elems[j] = static_cast<std::int32_t>(folded);  // |folded| < 2^30 + 2^30 (see quantized_linear)
  }
  return q;
}

template <std::size_t Out>
constexpr ::static_attention::requantizer<Out> make_requantizer(quant_params input, const double (&channel_scale)[Out],
                                                                quant_params output) noexcept {
  ::static_attention::requantizer<Out> r;
  for (std::size_t j = 0; j < Out; ++j) {
    const fixed_multiplier m =
        quantize_multiplier(static_cast<double>(input.scale) * channel_scale[j] / static_cast<double>(output.scale));
    r.multiplier.elems[j] = m.multiplier;
    r.shift.elems[j] = static_cast<std::int8_t>(m.shift);
  }
  r.zero_point = output.zero_point;
  return r;
}

}  // namespace detail
}  // namespace static_attention
