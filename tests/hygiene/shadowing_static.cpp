// SPDX-License-Identifier: BSL-1.0
// A user's file with globals of every common short name, then every public template
// instantiated: with -Wshadow -Werror it compiles only if no library template declares a
// local name that shadows them (GCC warns for lambda parameters in header templates).
#include <array>
#include <sstream>
#include <string_view>

#if __has_include(<fmt/format.h>)
#include <static_attention/io/fmt.hpp>
#define SA_HYGIENE_FMT 1
#endif
#include <static_attention/core/named.hpp>
#include <static_attention/core/random.hpp>
#include <static_attention/io/heatmap.hpp>
#include <static_attention/io/print.hpp>
#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/model.hpp>
#include <static_attention/static_attention.hpp>

namespace sa = static_attention;

// The hostile globals.
int x, y, z, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w;
int dropout, dropout_p, w_query, w_key, w_value, w_out, b_out, row_values, items, init;
int item, elem, value, next, head, heads, offset, gen, lhs, rhs, scalar, text, labels, label, weights, queries, keys,
    values, context, drop, out, result, total, acc, scores, mask, bias, weight, state, layer, shape, tol, os, opts,
    options, rows, cols, row, col, size, first, rest, cell, color, width, height, line, digits;
#ifndef SA_HYGIENE_FMT
int index;  // with {fmt}, <strings.h> comes in and declares the POSIX function index()
#endif
// Names the I/O headers (print.hpp, heatmap.hpp, fmt.hpp) give their parameters and locals.
int data, dims, dim, indent, printer, any, lo, hi, wide_range, precision, range, count, separator, put, per_line,
    on_line, room, element_length, for_each_shown, sc, colors, font, pad, widest, slanted, row_labels, col_labels,
    ticks, fill, bg, shade, shades, ansi, row_w, col_w, env, cp, len, it, ctx, sh;

void use_everything() {
  constexpr sa::matrix<float, 4, 3> inputs{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {1, 0, 1}};
  const auto batch = sa::stack(inputs, inputs * 2.0f);
  constexpr sa::tensor<int, 2, 1, 2> braced{{{1, 2}}, {{3, 4}}};
  (void)braced;
  sa::torch_generator rng{1};
  const auto wq = sa::linear_weight<float, 3, 4>(rng);
  const auto out_proj = sa::linear<float, 4, 4>(rng);

  (void)(inputs + inputs - inputs * inputs / (inputs + 1.0f));
  (void)(2.0f * inputs - 1.0f + -inputs);
  (void)(batch + batch);
  (void)sa::map(inputs, sa::detail::negate_op<float>{});
  (void)sa::transpose(batch);
  (void)sa::sum(batch);
  (void)sa::max(batch);
  (void)sa::softmax(batch);
  (void)sa::context_vectors(batch);
  (void)sa::context_vector(inputs, 1);

  const auto attn = sa::self_attention<float, 3, 4>::from_linear(wq, wq, wq);
  const auto causal = sa::causal_attention<float, 3, 4>::from_linear(wq, wq, wq, 0.1f);
  const auto mha =
      sa::multi_head_attention<float, 3, 4, 2>::from_linear(wq, wq, wq, out_proj.weight, out_proj.bias, 0.1f);
  (void)attn(batch);
  (void)causal(batch);
  (void)causal(batch, rng);
  (void)mha(batch);
  (void)mha(batch, rng);
  (void)mha.attention_weights(inputs);
  (void)sa::make_multi_head_attention_wrapper(causal, causal)(batch);

  const auto model = sa::make_model(mha, sa::linear_layer<float, 4, 2>{});
  (void)sa::forward(model, batch);

  const auto named_x = sa::name<sa::dims::tokens, sa::dims::d_in>(inputs);
  (void)sa::softmax(sa::matmul(named_x, sa::transpose(named_x)) + sa::matmul(named_x, sa::transpose(named_x)));

  std::ostringstream stream;
  stream << inputs << batch << sa::with_options(inputs, {.precision = 2});
  (void)sa::to_string(batch);
  (void)sa::to_string(batch, {.precision = 2, .linewidth = 40, .sci_mode = true, .threshold = 4, .edgeitems = 1});
  stream << sa::with_options(batch, {.sci_mode = false});
  constexpr sa::matrix<double, 2, 2> doubles{{1e-9, 2.5}, {3e9, -4}};
  constexpr sa::matrix<int, 2, 2> ints{{1, -20}, {300, 4}};
  constexpr sa::tensor<double, 2, 1, 2> double_batch{{{0.5, 0.25}}, {{1.0 / 3.0, 2.0}}};
  constexpr sa::tensor<int, 1, 2, 2> int_batch{{{1, 2}, {3, 4}}};
  stream << doubles << ints << double_batch << int_batch << sa::with_options(ints, {.threshold = 1});
  (void)sa::to_string(doubles, {.precision = 6});
  (void)sa::to_string(int_batch, {.edgeitems = 1});
#ifdef SA_HYGIENE_FMT
  (void)fmt::format("{}", inputs);
  (void)fmt::format("{:.2}", batch);
  (void)fmt::format("{} {}", ints, double_batch);
#endif

  // Heatmaps: both overloads of each, with every option path.
  const auto attn_w = sa::softmax(sa::matmul(inputs, sa::transpose(inputs)));
  constexpr std::array<std::string_view, 4> tokens{"Your", "journey", "starts", "with"};
  constexpr std::array<std::string_view, 3> features{"a", "b", "c"};
  sa::write_svg_heatmap(stream, attn_w, tokens);
  sa::write_svg_heatmap(stream, attn_w, tokens, {.title = "t", .scale_min = 0.0, .scale_max = 1.0});
  sa::write_svg_heatmap(stream, inputs, tokens, features);
  sa::write_svg_heatmap(
      stream, doubles, std::array<std::string_view, 2>{"p", "q"}, std::array<std::string_view, 2>{"r", "s"},
      {.row_axis = "rows", .col_axis = "cols", .show_values = false, .value_precision = 3, .cell_size = 20});
  sa::render_terminal(stream, attn_w, tokens);
  sa::render_terminal(stream, attn_w, tokens, sa::terminal_colors::shades);
  sa::render_terminal(stream, attn_w, tokens, sa::terminal_colors::truecolor);
  sa::render_terminal(stream, inputs, tokens, features);
  sa::render_terminal(
      stream, ints, std::array<std::string_view, 2>{"p", "q"}, std::array<std::string_view, 2>{"r", "s"},
      {.colors = sa::terminal_colors::truecolor, .scale_min = 0.0, .scale_max = 1.0, .value_precision = 1});
}

int main() { use_everything(); }
