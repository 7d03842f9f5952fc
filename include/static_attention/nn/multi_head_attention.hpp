// SPDX-License-Identifier: BSL-1.0
// Multi-head attention (the chapter's MultiHeadAttention) and MultiHeadAttentionWrapper.
#pragma once

#include <cstddef>
#include <type_traits>

#include <boost/hana/for_each.hpp>
#include <boost/hana/range.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include <static_attention/core/matmul.hpp>
#include <static_attention/core/slicing.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/causal_attention.hpp>
#include <static_attention/nn/detail/attention_checks.hpp>
#include <static_attention/nn/detail/attention_core.hpp>
#include <static_attention/nn/detail/cached_attention.hpp>

namespace static_attention {

// Constructor parameters are named init_*: GCC's -Wshadow flags a class template's constructor
// parameters that share a name with a global of the user's (w_query, say).

namespace detail {
// The heads of multi-head attention, visited by hana::for_each over their compile-time indices,
// so each head's columns [h * HeadDim, (h + 1) * HeadDim) have their width in their type.
// (Function objects rather than lambdas: see elementwise.hpp.)
template <class T, std::size_t HeadDim, std::size_t N, std::size_t DOut, std::size_t Heads>
struct head_weights {
  const matrix<T, N, DOut>* queries;
  const matrix<T, N, DOut>* keys;
  tensor<T, Heads, N, N>* weights;
  template <class Head>
  constexpr void operator()(Head) const noexcept {
    constexpr std::size_t offset = Head::value * HeadDim;
    set_item(*weights, Head::value,
             attn_weights<true>(slice_cols<offset, HeadDim>(*queries), slice_cols<offset, HeadDim>(*keys)));
  }
};

template <std::size_t Heads>
inline constexpr auto head_indices = boost::hana::make_range(boost::hana::size_c<0>, boost::hana::size_c<Heads>);

// Every head's output for x, concatenated: the wrapper's forward pass.
template <class X>
struct concat_head_outputs {
  const X* x;
  template <class... Heads>
  constexpr auto operator()(const Heads&... heads) const noexcept {
    return concat(heads(*x)...);
  }
};
// Biases of the query, key and value projections (nn.Linear(d_in, d_out, bias=qkv_bias)):
// none by default, as in the chapter.
template <class T, std::size_t DOut, bool QkvBias>
struct qkv_biases {};
template <class T, std::size_t DOut>
struct qkv_biases<T, DOut, true> {
  /// Bias rows of W_query, W_key and W_value (1 x d_out each), added after x W.
  matrix<T, 1, DOut> b_query;
  matrix<T, 1, DOut> b_key;
  matrix<T, 1, DOut> b_value;
};

// y = x W, plus the bias row when there is one. Into the caller's matrix: a result returned
// through inlined calls lands in a temporary that GCC then copies (512 bytes a projection).
template <class T, std::size_t N, std::size_t DIn, std::size_t DOut>
constexpr void project_into(matrix<T, N, DOut>& y, const matrix<T, N, DIn>& x, const matrix<T, DIn, DOut>& w,
                            const matrix<T, 1, DOut>* bias) noexcept {
  matmul_into(y, x, w);
  if (bias != nullptr)
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < DOut; ++j) y.elems[i * DOut + j] += bias->elems[j];
}

// x W, plus the bias row when there is one.
template <class T, std::size_t N, std::size_t DIn, std::size_t DOut>
constexpr matrix<T, N, DOut> project(const matrix<T, N, DIn>& x, const matrix<T, DIn, DOut>& w,
                                     const matrix<T, 1, DOut>* bias) noexcept {
  matrix<T, N, DOut> y{uninitialized};  // project_into writes every element
  project_into(y, x, w, bias);
  return y;
}
}  // namespace detail

/// Causal multi-head attention: d_out is split into num_heads heads of head_dim columns.
/// Each head attends on its own columns of Q, K and V, scaled by 1 / sqrt(head_dim); the
/// heads' context vectors are concatenated and go through the output projection
/// x W_out + b_out. Dropout and the context length work as in causal_attention. With qkv_bias
/// the query, key and value projections have bias rows too (b_query, b_key, b_value), as
/// `MultiHeadAttention(..., qkv_bias=True)`.
template <class T, std::size_t d_in, std::size_t d_out, std::size_t num_heads,
          std::size_t context_length = no_context_limit, bool qkv_bias = false>
struct multi_head_attention
    : detail::qkv_biases<T, d_out, qkv_bias>,
      detail::attention_calls<multi_head_attention<T, d_in, d_out, num_heads, context_length, qkv_bias>, T, d_out> {
  static_assert(d_out_divisible_by_num_heads<d_out, num_heads>,
                "multi_head_attention<T, d_in, d_out, num_heads> requires d_out % num_heads == 0, so that "
                "every head gets head_dim = d_out / num_heads columns");

  static_assert(detail::check_attention_element<T>());

  /// Columns per head.
  static constexpr std::size_t head_dim = num_heads > 0 ? d_out / num_heads : 0;

  /// The element type of the weights, the inputs and the outputs.
  using value_type = T;
  /// Features in and out, for shape folds over a model (model.hpp).
  static constexpr std::size_t in_features = d_in;
  static constexpr std::size_t out_features = d_out;
  /// The longest sequence it takes (its context_length), for the same folds.
  static constexpr std::size_t max_tokens = context_length;

  matrix<T, d_in, d_out> W_query;
  matrix<T, d_in, d_out> W_key;
  matrix<T, d_in, d_out> W_value;
  /// Output projection weight, x @ W layout (d_out x d_out).
  matrix<T, d_out, d_out> W_out;
  /// Output projection bias.
  matrix<T, 1, d_out> b_out;
  /// Probability of dropping an attention weight in training mode.
  T dropout_p{};

  /// Zero weights.
  constexpr multi_head_attention() noexcept = default;

  /// From d_in x d_out projections and a d_out x d_out output weight, all in the x @ W layout.
  template <class U, std::size_t R1, std::size_t C1, std::size_t R2, std::size_t C2, std::size_t R3, std::size_t C3,
            std::size_t R4, std::size_t C4, std::size_t R5, std::size_t C5>
  constexpr multi_head_attention(const matrix<U, R1, C1>& init_query, const matrix<U, R2, C2>& init_key,
                                 const matrix<U, R3, C3>& init_value, const matrix<U, R4, C4>& init_out,
                                 const matrix<U, R5, C5>& init_bias, T init_dropout = T{}) noexcept
      : W_query(detail::xw_weight<T, d_in, d_out>(init_query)),
        W_key(detail::xw_weight<T, d_in, d_out>(init_key)),
        W_value(detail::xw_weight<T, d_in, d_out>(init_value)),
        W_out(detail::xw_weight<T, d_out, d_out>(init_out)),
        b_out(detail::bias_row<T, d_out>(init_bias)),
        dropout_p(detail::checked_dropout_p(init_dropout)) {}

  /// From nn.Linear weights (d_out x d_in for W_query, W_key, W_value; d_out x d_out for
  /// out_proj.weight) and out_proj.bias as 1 x d_out.
  template <class U, std::size_t R1, std::size_t C1, std::size_t R2, std::size_t C2, std::size_t R3, std::size_t C3,
            std::size_t R4, std::size_t C4, std::size_t R5, std::size_t C5>
  static constexpr multi_head_attention from_linear(const matrix<U, R1, C1>& init_query,
                                                    const matrix<U, R2, C2>& init_key,
                                                    const matrix<U, R3, C3>& init_value,
                                                    const matrix<U, R4, C4>& init_out,
                                                    const matrix<U, R5, C5>& init_bias, T init_dropout = T{}) noexcept {
    return {detail::linear_weight_as_xw<T, d_in, d_out>(init_query),
            detail::linear_weight_as_xw<T, d_in, d_out>(init_key),
            detail::linear_weight_as_xw<T, d_in, d_out>(init_value),
            detail::linear_weight_as_xw<T, d_out, d_out>(init_out),
            detail::bias_row<T, d_out>(init_bias),
            init_dropout};
  }

  /// Each head's masked attention weights for one sequence: num_heads x N x N.
  template <class U, std::size_t N, std::size_t D>
  constexpr tensor<T, num_heads, N, N> attention_weights(const matrix<U, N, D>& x) const noexcept {
    tensor<T, num_heads, N, N> out;
    if constexpr (detail::input_fits<T, d_in, context_length, U, N, D>()) {
      const auto queries = detail::project(x, W_query, query_bias());
      const auto keys = detail::project(x, W_key, key_bias());
      boost::hana::for_each(detail::head_indices<num_heads>,
                            detail::head_weights<T, head_dim, N, d_out, num_heads>{&queries, &keys, &out});
    }
    return out;
  }

 private:
  friend detail::attention_calls<multi_head_attention<T, d_in, d_out, num_heads, context_length, qkv_bias>, T, d_out>;
  constexpr const matrix<T, 1, d_out>* query_bias() const noexcept {
    if constexpr (qkv_bias) return &this->b_query;
    return nullptr;
  }
  constexpr const matrix<T, 1, d_out>* key_bias() const noexcept {
    if constexpr (qkv_bias) return &this->b_key;
    return nullptr;
  }
  constexpr const matrix<T, 1, d_out>* value_bias() const noexcept {
    if constexpr (qkv_bias) return &this->b_value;
    return nullptr;
  }

  template <class U, std::size_t N, std::size_t D, class Drop>
  constexpr matrix<T, N, d_out> forward(const matrix<U, N, D>& x, const Drop& drop) const noexcept {
    constexpr std::size_t bytes = sizeof(T) * (7 * N * d_out + N);  // Q, K, V, K^T, context, out, result
    detail::check_stack<bytes, detail::instead_attend_into_att_x_out_cache>();
    matrix<T, N, d_out> context;  // zeros: the heads add their outputs into it
    if constexpr (detail::input_fits<T, d_in, context_length, U, N, D>() && stack_use_within<bytes, stack_limit>) {
      // Written in place (project_into): no zeros first, no copies after.
      matrix<T, N, d_out> queries{detail::uninitialized};
      matrix<T, N, d_out> keys{detail::uninitialized};
      matrix<T, N, d_out> values{detail::uninitialized};
      detail::project_into(queries, x, W_query, query_bias());
      detail::project_into(keys, x, W_key, key_bias());
      detail::project_into(values, x, W_value, value_bias());
      detail::causal_heads_into<num_heads>(context, queries, keys, values, drop);
    }
    matrix<T, N, d_out> out{detail::uninitialized};  // into the result itself, not a temporary copied
    matmul_into(out, context, W_out);
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < d_out; ++j) out.elems[i * d_out + j] += b_out.elems[j];
    return out;
  }
};

/// The chapter's MultiHeadAttentionWrapper: independent causal heads, held in a Hana tuple,
/// whose outputs are concatenated along the last dimension. Heads may differ in d_out.
template <class... Heads>
struct multi_head_attention_wrapper {
  static_assert(sizeof...(Heads) > 0, "multi_head_attention_wrapper needs at least one head");
  /// Features in (every head's d_in) and out (the sum of the heads' d_out).
  static constexpr std::size_t in_features = (Heads::in_features, ...);
  static_assert(((Heads::in_features == in_features) && ...),
                "multi_head_attention_wrapper requires heads of one d_in");
  static constexpr std::size_t out_features = (Heads::out_features + ...);
  /// The element type of the first head (concatenation requires all heads to share it).
  using value_type = detail::layer_element_t<typename detail::first_type<Heads...>::type>;
  /// The longest sequence every head takes.
  static constexpr std::size_t max_tokens = detail::min_max_tokens<Heads...>();
  /// The heads, in output order.
  boost::hana::tuple<Heads...> heads;

  /// Every head's output for x (a sequence or a batch), concatenated: `torch.cat(..., dim=-1)`.
  template <class X>
  constexpr auto operator()(const X& x) const noexcept {
    return boost::hana::unpack(heads, detail::concat_head_outputs<X>{&x});
  }
};

/// Builds a wrapper from heads: `make_multi_head_attention_wrapper(head0, head1)`.
template <class... Heads>
constexpr multi_head_attention_wrapper<Heads...> make_multi_head_attention_wrapper(const Heads&... heads) noexcept {
  return {boost::hana::make_tuple(heads...)};
}

}  // namespace static_attention
