// SPDX-License-Identifier: BSL-1.0
// The device tests' cases, shared by the programs that run on the boards (tests/device/target/,
// cross-compiled, run under qemu-system-arm) and the host program that checks their output
// (check.cpp). Each case is a type with
//   name       what the device prints before the output's bits;
//   args       its inputs (and model) as a constexpr value; a device program reads them through
//              a volatile pointer, so the forward pass really runs on the device;
//   run(args)  the computation: the device calls it at run time, check.cpp in a constexpr
//              variable (the constant evaluator's bits);
//   torch      PyTorch's float32 result (numpy's for the math functions), with its tolerance:
//              absolute (the attention tests' 1e-6, the embedded example's 1e-5) or, for math,
//              a distance in representable floats (the contract of docs/accuracy.md).
// The references were computed by tests/reference/gen_attention_reference.py (torch, the chapter's seeds),
// tests/reference/gen_embedded_weights.py (torch, examples/weights/expected.npy),
// tests/reference/gen_gpt_reference.py (torch, the chapter-4 GPT) and tests/reference/gen_math_reference.py (numpy);
// no test needs python.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <span>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/static_attention.hpp>

#include <device/embedded_weights.hpp>  // examples/weights/*.npy, embedded at build time

#include "attention_reference.hpp"
#include "chapter_reference.hpp"
#include "gpt_reference.hpp"
#include "math_reference.hpp"
#include "reference_support.hpp"

namespace device_cases {

namespace sa = static_attention;
namespace ch = ::reference::chapter;
using test_support::to_matrix;
using test_support::to_tensor;

/// A list of cases, one device program's worth.
template <class... Cases>
struct group {};

/// How close to the reference: |y - ref| <= tol; |y - ref| <= tol max(1, |ref|) (the GPT tests');
/// a distance in representable floats (the math contract); or equal (token ids).
enum class tolerance_kind { absolute, relative, float_steps, exact };

/// A reference table: PyTorch's values (widened to double) and how close the device must be.
struct reference_values {
  std::span<const double> values;
  tolerance_kind kind;
  double tolerance;
};

// The chapter's input, "Your journey starts with one step" (6 tokens x 3), and the batch of two.
inline constexpr auto chapter_x = to_matrix<float, 6, 3>(ch::x);
inline constexpr auto chapter_batch = sa::stack(chapter_x, chapter_x);

// ---- the chapter, section by section ---------------------------------------------------------

struct simplified_weights {
  static constexpr const char* name = "chapter.simplified.attn_weights";
  struct args_type {
    sa::matrix<float, 6, 3> x;
  };
  static constexpr args_type args{chapter_x};
  static constexpr auto run(const args_type& a) noexcept { return sa::attention_weights(a.x); }
  static constexpr reference_values torch{ch::simplified_attn_weights, tolerance_kind::absolute, 1e-6};
};

struct simplified_context {
  static constexpr const char* name = "chapter.simplified.context";
  using args_type = simplified_weights::args_type;
  static constexpr args_type args{chapter_x};
  static constexpr auto run(const args_type& a) noexcept { return sa::context_vectors(a.x); }
  static constexpr reference_values torch{ch::simplified_context_vecs, tolerance_kind::absolute, 1e-6};
};

// SelfAttention_v2 (nn.Linear weights, seed 789), and causal attention with its weights.
struct v2_args {
  sa::self_attention<float, 3, 2> model;
  sa::matrix<float, 6, 3> x;
};
inline constexpr v2_args v2{sa::self_attention<float, 3, 2>::from_linear(to_matrix<float, 2, 3>(ch::v2_w_query),
                                                                         to_matrix<float, 2, 3>(ch::v2_w_key),
                                                                         to_matrix<float, 2, 3>(ch::v2_w_value)),
                            chapter_x};

struct self_attention_v2 {
  static constexpr const char* name = "chapter.self_attention_v2.context";
  using args_type = v2_args;
  static constexpr args_type args = v2;
  static constexpr auto run(const args_type& a) noexcept { return a.model(a.x); }
  static constexpr reference_values torch{ch::v2_context, tolerance_kind::absolute, 1e-6};
};

struct causal_args {
  sa::causal_attention<float, 3, 2> model;
  sa::matrix<float, 6, 3> x;
};
inline constexpr causal_args causal_v2{{v2.model.W_query, v2.model.W_key, v2.model.W_value}, chapter_x};

struct causal_weights {
  static constexpr const char* name = "chapter.causal.attn_weights";
  using args_type = causal_args;
  static constexpr args_type args = causal_v2;
  static constexpr auto run(const args_type& a) noexcept { return a.model.attention_weights(a.x); }
  static constexpr reference_values torch{ch::causal_attn_weights, tolerance_kind::absolute, 1e-6};
};

struct causal_context {
  static constexpr const char* name = "chapter.causal.context";
  using args_type = causal_args;
  static constexpr args_type args = causal_v2;
  static constexpr auto run(const args_type& a) noexcept { return a.model(a.x); }
  static constexpr reference_values torch{ch::causal_context, tolerance_kind::absolute, 1e-6};
};

// CausalAttention(3, 2, context_length=6) after torch.manual_seed(123), on the batch.
struct causal_module {
  static constexpr const char* name = "chapter.causal_module.batch";
  struct args_type {
    sa::causal_attention<float, 3, 2, 6> model;
    sa::tensor<float, 2, 6, 3> x;
  };
  static constexpr args_type args{
      sa::causal_attention<float, 3, 2, 6>::from_linear(to_matrix<float, 2, 3>(ch::causal_module_w_query),
                                                        to_matrix<float, 2, 3>(ch::causal_module_w_key),
                                                        to_matrix<float, 2, 3>(ch::causal_module_w_value)),
      chapter_batch};
  static constexpr auto run(const args_type& a) noexcept { return a.model(a.x); }
  static constexpr reference_values torch{ch::causal_module_context, tolerance_kind::absolute, 1e-6};
};

// MultiHeadAttention(3, 2, 6, 0.0, num_heads=2) after torch.manual_seed(123), on the batch.
struct multi_head {
  static constexpr const char* name = "chapter.multi_head_attention.batch";
  using model_type = sa::multi_head_attention<float, 3, 2, 2, 6>;
  struct args_type {
    model_type model;
    sa::tensor<float, 2, 6, 3> x;
  };
  static constexpr args_type args{
      model_type::from_linear(to_matrix<float, 2, 3>(ch::mha_w_query), to_matrix<float, 2, 3>(ch::mha_w_key),
                              to_matrix<float, 2, 3>(ch::mha_w_value), to_matrix<float, 2, 2>(ch::mha_out_proj_weight),
                              to_matrix<float, 1, 2>(ch::mha_out_proj_bias)),
      chapter_batch};
  static constexpr auto run(const args_type& a) noexcept { return a.model(a.x); }
  static constexpr reference_values torch{ch::mha_context, tolerance_kind::absolute, 1e-6};
};

using chapter = group<simplified_weights, simplified_context, self_attention_v2, causal_weights, causal_context,
                      causal_module, multi_head>;

// ---- randomized shapes: odd sizes, so every kernel's tail code runs --------------------------

// Every module of tests/attention/random_shapes_test.cpp on one of its cases (torch float32).
template <class Case>
struct random_shapes {
  static constexpr std::size_t B = Case::batch, N = Case::tokens, d_in = Case::d_in, d_out = Case::d_out;
  using mha_type = sa::multi_head_attention<float, d_in, d_out, Case::heads>;
  struct args_type {
    sa::tensor<float, B, N, d_in> x;
    sa::causal_attention<float, d_in, d_out> causal;
    mha_type mha;
  };
  static constexpr args_type args{
      to_tensor<float, B, N, d_in>(Case::x),
      sa::causal_attention<float, d_in, d_out>::from_linear(to_matrix<float, d_out, d_in>(Case::wq),
                                                            to_matrix<float, d_out, d_in>(Case::wk),
                                                            to_matrix<float, d_out, d_in>(Case::wv)),
      mha_type::from_linear(to_matrix<float, d_out, d_in>(Case::wq), to_matrix<float, d_out, d_in>(Case::wk),
                            to_matrix<float, d_out, d_in>(Case::wv), to_matrix<float, d_out, d_out>(Case::w_out),
                            to_matrix<float, 1, d_out>(Case::b_out))};
};

template <class Case>
struct random_simplified : random_shapes<Case> {
  static constexpr auto run(const typename random_shapes<Case>::args_type& a) noexcept {
    return sa::context_vectors(a.x);
  }
  static constexpr reference_values torch{Case::simplified_f32, tolerance_kind::absolute, 1e-6};
};
template <class Case>
struct random_causal : random_shapes<Case> {
  static constexpr auto run(const typename random_shapes<Case>::args_type& a) noexcept { return a.causal(a.x); }
  static constexpr reference_values torch{Case::causal_f32, tolerance_kind::absolute, 1e-6};
};
template <class Case>
struct random_mha : random_shapes<Case> {
  static constexpr auto run(const typename random_shapes<Case>::args_type& a) noexcept { return a.mha(a.x); }
  static constexpr reference_values torch{Case::mha_f32, tolerance_kind::absolute, 1e-6};
};

namespace ra = ::reference::attention;
// B=2, N=5, d_in=7, d_out=6, 3 heads; B=4, N=9, d_in=16, d_out=24, 8 heads.
struct case2_simplified : random_simplified<ra::case_2> {
  static constexpr const char* name = "random.2x5x7.simplified";
};
struct case2_causal : random_causal<ra::case_2> {
  static constexpr const char* name = "random.2x5x7.causal_6";
};
struct case2_mha : random_mha<ra::case_2> {
  static constexpr const char* name = "random.2x5x7.multi_head_6x3";
};
struct case6_causal : random_causal<ra::case_6> {
  static constexpr const char* name = "random.4x9x16.causal_24";
};
struct case6_mha : random_mha<ra::case_6> {
  static constexpr const char* name = "random.4x9x16.multi_head_24x8";
};

// Operands whose products are subnormal, and scores far apart: on the M55 the Helium kernels
// must leave these to the portable code (its float lanes flush subnormals to zero), so the
// device's bits are still the constant evaluator's. Their references are the constant
// evaluator's own values: what is checked is the bits.
template <std::size_t R, std::size_t C>
constexpr std::array<double, R * C> as_doubles(const sa::matrix<float, R, C>& m) {
  std::array<double, R * C> out{};
  for (std::size_t k = 0; k < R * C; ++k) out[k] = static_cast<double>(m.elems[k]);
  return out;
}
template <std::size_t R, std::size_t C>
constexpr sa::matrix<float, R, C> scaled_pattern(float scale, std::size_t period) {
  sa::matrix<float, R, C> m{};
  for (std::size_t k = 0; k < R * C; ++k)
    m.elems[k] = (k % 3 == 0 ? -1.0f : 1.0f) * static_cast<float>(k % period + 1) * scale;
  return m;
}
struct tiny_matmul_args {
  sa::matrix<float, 8, 16> a;
  sa::matrix<float, 16, 16> b;
};
inline constexpr tiny_matmul_args tiny_matmul_inputs{scaled_pattern<8, 16>(1e-20f, 7),
                                                     scaled_pattern<16, 16>(3e-21f, 5)};
inline constexpr auto tiny_matmul_bits = as_doubles(sa::matmul(tiny_matmul_inputs.a, tiny_matmul_inputs.b));
struct tiny_matmul {
  static constexpr const char* name = "random.tiny_products_8x16x16";
  using args_type = tiny_matmul_args;
  static constexpr const args_type& args = tiny_matmul_inputs;
  static constexpr auto run(const args_type& x) noexcept { return sa::matmul(x.a, x.b); }
  static constexpr reference_values torch{tiny_matmul_bits, tolerance_kind::absolute, 0.0};
};
using wide_scores_model = sa::multi_head_attention<float, 8, 8, 2>;
struct wide_scores_args {
  wide_scores_model model;
  sa::matrix<float, 6, 8> x;
};
inline constexpr wide_scores_args wide_scores_inputs{
    wide_scores_model::from_linear(scaled_pattern<8, 8>(0.5f, 5), scaled_pattern<8, 8>(0.25f, 3),
                                   scaled_pattern<8, 8>(0.125f, 7), scaled_pattern<8, 8>(0.1f, 4),
                                   scaled_pattern<1, 8>(0.01f, 3)),
    scaled_pattern<6, 8>(2.0f, 5)};
inline constexpr auto wide_scores_bits = as_doubles(wide_scores_inputs.model(wide_scores_inputs.x));
struct wide_scores {
  static constexpr const char* name = "random.wide_scores_6x8.multi_head_8x2";
  using args_type = wide_scores_args;
  static constexpr const args_type& args = wide_scores_inputs;
  static constexpr auto run(const args_type& x) noexcept { return x.model(x.x); }
  static constexpr reference_values torch{wide_scores_bits, tolerance_kind::absolute, 0.0};
};

inline constexpr wide_scores_args tiny_heads_inputs{
    wide_scores_model::from_linear(scaled_pattern<8, 8>(1e-12f, 5), scaled_pattern<8, 8>(2e-12f, 3),
                                   scaled_pattern<8, 8>(1e-12f, 7), scaled_pattern<8, 8>(0.1f, 4),
                                   scaled_pattern<1, 8>(0.01f, 3)),
    scaled_pattern<6, 8>(1e-12f, 5)};
inline constexpr auto tiny_heads_bits = as_doubles(tiny_heads_inputs.model(tiny_heads_inputs.x));
struct tiny_heads {  // queries and keys near 1e-23: subnormal scores
  static constexpr const char* name = "random.tiny_heads_6x8.multi_head_8x2";
  using args_type = wide_scores_args;
  static constexpr const args_type& args = tiny_heads_inputs;
  static constexpr auto run(const args_type& x) noexcept { return x.model(x.x); }
  static constexpr reference_values torch{tiny_heads_bits, tolerance_kind::absolute, 0.0};
};

using random =
    group<case2_simplified, case2_causal, case2_mha, case6_causal, case6_mha, tiny_matmul, wide_scores, tiny_heads>;

// ---- the embedded example's model: 16 -> 16, four causal heads, 8 tokens ---------------------

/// A float matrix widened to double, for a reference table.
template <std::size_t R, std::size_t C>
constexpr std::array<double, R * C> widen(const sa::matrix<float, R, C>& m) {
  std::array<double, R * C> out{};
  for (std::size_t k = 0; k < R * C; ++k) out[k] = static_cast<double>(m.elems[k]);
  return out;
}
inline constexpr auto embedded_expected = widen(device_weights::expected);  // torch's output

// examples/embedded_attention.cpp's model (MultiHeadAttention(16, 16, 32, num_heads=4)), from
// the same .npy files, on the same 8 x 16 input.
struct embedded_model {
  static constexpr const char* name = "embedded.multi_head_16x4.context";
  using model_type = sa::multi_head_attention<float, 16, 16, 4, 32>;
  struct args_type {
    model_type model;
    sa::matrix<float, 8, 16> x;
  };
  static constexpr args_type args{
      model_type::from_linear(device_weights::w_query, device_weights::w_key, device_weights::w_value,
                              device_weights::out_proj_weight, device_weights::out_proj_bias),
      device_weights::inputs};
  static constexpr auto run(const args_type& a) noexcept { return a.model(a.x); }
  static constexpr reference_values torch{embedded_expected, tolerance_kind::absolute, 1e-5};
};

using embedded = group<embedded_model>;

// ---- the math functions: numpy's golden inputs, then the special values ---------------------

inline constexpr std::uint32_t special_bits[] = {
    0x00000000U, 0x80000000U, 0x7f800000U, 0xff800000U,  // +-0, +-inf
    0x7fc00000U, 0xffc12345U, 0x7f812345U,               // NaNs: quiet, with payloads, signalling
    0x00000001U, 0x80000001U, 0x00400000U, 0x007fffffU,  // subnormals
    0x00800000U, 0x7f7fffffU, 0xff7fffffU,               // smallest normal, +-max
    0x3f800000U, 0xbf800000U, 0x3f7fffffU, 0x3f800001U,  // +-1 and its neighbours
    0x42b17217U, 0x42b17218U, 0xc2d00000U, 0xc2cff8c4U,  // exp: last finite, first inf; underflow
    0x41200000U, 0x411fffffU, 0xc1200001U, 0x3f0ccccdU,  // tanh: 10 and below; 0.55
    0x3e800000U, 0x3f3504f3U, 0x3fb504f3U, 0x40000000U,  // log: 1/4, sqrt(1/2), sqrt(2), 2
};
inline constexpr std::size_t specials = std::size(special_bits);

/// The golden inputs of a numpy table followed by the special values, as one row.
template <std::size_t N>
constexpr sa::matrix<float, 1, N + specials> math_inputs(const sa_math_reference::golden<float> (&table)[N]) {
  sa::matrix<float, 1, N + specials> m{};
  for (std::size_t k = 0; k < N; ++k) m.elems[k] = table[k].x;
  for (std::size_t k = 0; k < specials; ++k) m.elems[N + k] = std::bit_cast<float>(special_bits[k]);
  return m;
}
template <std::size_t N>
constexpr std::array<double, N> math_outputs(const sa_math_reference::golden<float> (&table)[N]) {
  std::array<double, N> out{};
  for (std::size_t k = 0; k < N; ++k) out[k] = static_cast<double>(table[k].y);
  return out;
}

enum class math_fn { exp, log, sqrt, tanh };

template <math_fn F>
constexpr float apply(float x) noexcept {
  if constexpr (F == math_fn::exp) {
    return sa::exp(x);
  } else if constexpr (F == math_fn::log) {
    return sa::log(x);
  } else if constexpr (F == math_fn::sqrt) {
    return sa::sqrt(x);
  } else {
    return sa::tanh(x);
  }
}

// The distance to numpy's float64 result rounded to float that the contract allows, in floats:
// exp and log within 1 ulp, sqrt correctly rounded, tanh within 2 ulp (docs/accuracy.md).
template <math_fn F, const auto& Table, bool Array>
struct math_case {
  struct args_type {
    decltype(math_inputs(Table)) x;
  };
  static constexpr args_type args{math_inputs(Table)};
  static constexpr auto run(const args_type& a) noexcept {
    auto y = a.x;
    if constexpr (Array && F == math_fn::exp) {
      sa::exp(std::span<const float>{a.x.elems}, std::span<float>{y.elems});
    } else if constexpr (Array && F == math_fn::log) {
      sa::log(std::span<const float>{a.x.elems}, std::span<float>{y.elems});
    } else if constexpr (Array && F == math_fn::tanh) {
      sa::tanh(std::span<const float>{a.x.elems}, std::span<float>{y.elems});
    } else {
      for (std::size_t k = 0; k < y.size; ++k) y.elems[k] = apply<F>(a.x.elems[k]);
    }
    return y;
  }
  static constexpr auto expected = math_outputs(Table);
  static constexpr reference_values torch{expected, tolerance_kind::float_steps,
                                          F == math_fn::sqrt ? 0.0 : (F == math_fn::tanh ? 2.0 : 1.0)};
};

namespace mr = sa_math_reference;
struct exp_scalar : math_case<math_fn::exp, mr::exp_float, false> {
  static constexpr const char* name = "math.exp";
};
struct exp_array : math_case<math_fn::exp, mr::exp_float, true> {
  static constexpr const char* name = "math.exp.array";
};
struct log_scalar : math_case<math_fn::log, mr::log_float, false> {
  static constexpr const char* name = "math.log";
};
struct log_array : math_case<math_fn::log, mr::log_float, true> {
  static constexpr const char* name = "math.log.array";
};
struct sqrt_scalar : math_case<math_fn::sqrt, mr::sqrt_float, false> {
  static constexpr const char* name = "math.sqrt";
};
struct tanh_scalar : math_case<math_fn::tanh, mr::tanh_float, false> {
  static constexpr const char* name = "math.tanh";
};
struct tanh_array : math_case<math_fn::tanh, mr::tanh_float, true> {
  static constexpr const char* name = "math.tanh.array";
};

// Softmax rows that take every path of the run-time softmax and its exponentials (on the
// Cortex-M without vectors: softmax.hpp's softmax_row_by_row, math_exp.hpp's exp_below_max):
// differences x - max in (-86, 0) with k from 0 to -124, at -86, between -86 and -104
// (subnormal weights), at and past -104, -inf; +-0 maxima; an x - max that overflows to -inf;
// a row of -inf (zeros); +inf (NaN); NaN first, after the max, after a far value, among -inf,
// and with the sign bit set. What is checked is the bits, against the constant evaluator's:
// the reference holds no values.
inline constexpr float f_inf = std::numeric_limits<float>::infinity();
inline constexpr float f_nan = std::numeric_limits<float>::quiet_NaN();
inline constexpr float f_max = std::numeric_limits<float>::max();
inline constexpr float f_negative_nan = std::bit_cast<float>(0xffc0'0000U);
struct softmax_rows_args {
  sa::matrix<float, 12, 8> x;
};
inline constexpr softmax_rows_args softmax_rows_inputs{
    {{0.0f, -1.0f, -2.5f, -0.25f, -0.3465f, -0.3467f, 0.125f, 3.0f},
     {0.0f, -85.99999f, -86.0f, -86.00001f, -86.99f, -87.34f, -100.0f, -103.99999f},
     {0.0f, -104.0f, -104.00001f, -200.0f, -f_inf, -1e30f, -f_max, -0.0f},
     {f_max, -f_max, 0.0f, 1.0f, -f_max, f_max, 2.0f, -3.0f},
     {-f_inf, -f_inf, -f_inf, -f_inf, -f_inf, -f_inf, -f_inf, -f_inf},
     {f_nan, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f},
     {1.0f, 7.0f, 2.0f, f_nan, 3.0f, 4.0f, 5.0f, 6.0f},
     {1.0f, 2.0f, 3.0f, f_inf, 4.0f, 5.0f, 6.0f, 7.0f},
     {-f_inf, -f_inf, f_nan, -f_inf, -f_inf, -f_inf, -f_inf, -f_inf},
     {-0.0f, -0.0f, 0.0f, -0.0f, 0.0f, 0.0f, -0.0f, -0.0f},
     {0.0f, -95.0f, f_nan, -1.0f, -2.0f, f_negative_nan, -3.0f, -4.0f},
     {-80.5f, -60.25f, -44.3f, -10.7f, 1e-30f, -1e-30f, 0.5f, -16.0f}}};
struct softmax_rows {
  static constexpr const char* name = "math.softmax.rows";
  using args_type = softmax_rows_args;
  static constexpr const args_type& args = softmax_rows_inputs;
  static constexpr auto run(const args_type& a) noexcept { return sa::softmax(a.x); }
  static constexpr reference_values torch{std::span<const double>{}, tolerance_kind::absolute, 0.0};
};

using math = group<exp_scalar, exp_array, log_scalar, log_array, sqrt_scalar, tanh_scalar, tanh_array, softmax_rows>;

// ---- the chapter-4 GPT: tiny models, weights drawn as torch.manual_seed(123) draws -----------

namespace gr = ::reference::gpt;
inline constexpr sa::gpt_config gpt_tiny{64, 8, 16, 2, 2, false};       // 8,672 parameters
inline constexpr sa::gpt_config gpt_tiny_bias3{64, 8, 18, 3, 2, true};  // three heads, qkv bias
inline constexpr std::array<int, 4> gpt_prompt{5, 17, 42, 63};

template <sa::gpt_config Cfg>
constexpr sa::gpt_model<float, Cfg> make_gpt() {
  sa::gpt_model<float, Cfg> model;
  sa::torch_generator gen{123};
  sa::init_like_torch(model, gen);
  return model;
}

template <sa::gpt_config Cfg>
struct gpt_args {
  sa::gpt_model<float, Cfg> model;
  std::array<int, 4> prompt;
};
template <sa::gpt_config Cfg>
inline constexpr gpt_args<Cfg> gpt_inputs{make_gpt<Cfg>(), gpt_prompt};

template <std::size_t N>
constexpr std::array<double, N> widen_ids(const int (&ids)[N]) {
  std::array<double, N> out{};
  for (std::size_t k = 0; k < N; ++k) out[k] = ids[k];
  return out;
}

// The logits of the prompt: the forward pass (embedding, layer norm, causal multi-head attention,
// GELU feed-forward, output head); torch's check is relative, as tests/gpt's.
template <sa::gpt_config Cfg, const auto& Torch>
struct gpt_logits {
  using args_type = gpt_args<Cfg>;
  static constexpr const args_type& args = gpt_inputs<Cfg>;
  static constexpr auto run(const args_type& a) noexcept { return a.model(a.prompt); }
  static constexpr reference_values torch{Torch, tolerance_kind::relative, 1e-6};
};

// generate_text_simple: four greedy steps over the KV cache; the ids as a 1 x 8 matrix.
template <sa::gpt_config Cfg, const auto& Torch>
struct gpt_generate {
  using args_type = gpt_args<Cfg>;
  static constexpr const args_type& args = gpt_inputs<Cfg>;
  static constexpr auto run(const args_type& a) noexcept {
    const auto ids = sa::generate_text_simple<4>(a.model, a.prompt);
    sa::matrix<int, 1, ids.size()> out{};
    for (std::size_t k = 0; k < ids.size(); ++k) out.elems[k] = ids[k];
    return out;
  }
  static constexpr auto expected = widen_ids(Torch);
  static constexpr reference_values torch{expected, tolerance_kind::exact, 0.0};
};

struct gpt_tiny_logits : gpt_logits<gpt_tiny, gr::tiny_logits> {
  static constexpr const char* name = "gpt.tiny.logits";
};
struct gpt_tiny_generate : gpt_generate<gpt_tiny, gr::tiny_generated> {
  static constexpr const char* name = "gpt.tiny.generate_text_simple";
};
struct gpt_bias3_logits : gpt_logits<gpt_tiny_bias3, gr::tiny_bias3_logits> {
  static constexpr const char* name = "gpt.tiny_bias3.logits";
};
struct gpt_bias3_generate : gpt_generate<gpt_tiny_bias3, gr::tiny_bias3_generated> {
  static constexpr const char* name = "gpt.tiny_bias3.generate_text_simple";
};

using gpt = group<gpt_tiny_logits, gpt_tiny_generate, gpt_bias3_logits, gpt_bias3_generate>;

}  // namespace device_cases
