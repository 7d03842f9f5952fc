// SPDX-License-Identifier: BSL-1.0
// The shape rules of the attention modules, stated where a learner's mistake is likely.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <type_traits>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/shape_rules.hpp>
#include <static_attention/core/stack_limit.hpp>

namespace static_attention::detail {
// What to call instead when a forward pass would exceed the stack budget (check_stack's tags).
struct instead_attend_into_att_x_out_cache {};
struct instead_gpt_model_hidden_ids_workspace {};
struct instead_prefill_ids_workspace_for_the_last_row {};
struct instead_generate_model_prompt_static_workspace {};
}  // namespace static_attention::detail

namespace static_attention::detail {

template <class T>
constexpr bool check_attention_element() noexcept {
  static_assert(is_floating_element<T>, "attention modules require a floating-point element type (float or double)");
  return true;
}

// A bias row: 1 x d_out (nn.Linear's bias, shape (d_out,) in PyTorch).
template <class T, std::size_t DOut, class U, std::size_t R, std::size_t C>
constexpr matrix<T, 1, DOut> bias_row(const matrix<U, R, C>& b) noexcept {
  static_assert(element_types_equal<T, U>, "attention weights must have the module's element type");
  static_assert(weight_shape_matches<shape<R, C>, shape<1, DOut>>, "the bias is a 1 x d_out row (nn.Linear's bias)");
  if constexpr (std::is_same_v<matrix<U, R, C>, matrix<T, 1, DOut>>) {
    return b;
  } else {
    return {};
  }
}

// A weight in the x @ W layout: d_in x d_out.
template <class T, std::size_t DIn, std::size_t DOut, class U, std::size_t R, std::size_t C>
constexpr matrix<T, DIn, DOut> xw_weight(const matrix<U, R, C>& w) noexcept {
  static_assert(element_types_equal<T, U>, "attention weights must have the module's element type");
  if constexpr (R == DOut && C == DIn && DIn != DOut) {
    static_assert(weight_shape_matches<shape<R, C>, shape<DIn, DOut>>,
                  "this constructor takes d_in x d_out weights (x @ W); these are d_out x d_in, "
                  "nn.Linear's layout: use from_linear(...)");
  } else {
    static_assert(weight_shape_matches<shape<R, C>, shape<DIn, DOut>>,
                  "this constructor takes d_in x d_out weights (x @ W), as in SelfAttention_v1");
  }
  if constexpr (std::is_same_v<matrix<U, R, C>, matrix<T, DIn, DOut>>) {
    return w;
  } else {
    return {};
  }
}

// A weight in nn.Linear's layout, d_out x d_in, returned in the x @ W layout.
template <class T, std::size_t DIn, std::size_t DOut, class U, std::size_t R, std::size_t C>
constexpr matrix<T, DIn, DOut> linear_weight_as_xw(const matrix<U, R, C>& w) noexcept {
  static_assert(element_types_equal<T, U>, "attention weights must have the module's element type");
  if constexpr (R == DIn && C == DOut && DIn != DOut) {
    static_assert(weight_shape_matches<shape<R, C>, shape<DOut, DIn>>,
                  "from_linear(...) takes nn.Linear's d_out x d_in weights (x @ W.T); these are "
                  "d_in x d_out: use the constructor");
  } else {
    static_assert(weight_shape_matches<shape<R, C>, shape<DOut, DIn>>,
                  "from_linear(...) takes nn.Linear's d_out x d_in weights (x @ W.T)");
  }
  if constexpr (std::is_same_v<matrix<U, R, C>, matrix<T, DOut, DIn>>) {
    return transpose(w);
  } else {
    return {};
  }
}

// An input sequence of N tokens with d_in features, within the context length.
template <std::size_t DIn, std::size_t ContextLength, std::size_t N, std::size_t D>
constexpr void check_input() noexcept;

// The same, and of the module's element type.
template <class T, std::size_t DIn, std::size_t ContextLength, class U, std::size_t N, std::size_t D>
constexpr bool input_fits() noexcept {
  static_assert(element_types_equal<U, T>,
                "an attention module requires inputs of its own element type; convert them with map()");
  check_input<DIn, ContextLength, N, D>();
  return std::is_same_v<U, T> && D == DIn && N <= ContextLength;
}

template <std::size_t DIn, std::size_t ContextLength, std::size_t N, std::size_t D>
constexpr void check_input() noexcept {
  static_assert(input_features_match<shape<N, D>, DIn>,
                "an attention module requires inputs of N x d_in (tokens x features); cols(x) != d_in");
  static_assert(tokens_within_context_length<N, ContextLength>,
                "the sequence is longer than the module's context_length");
}

// What model folds (model.hpp) read from a layer besides its features: its element type (void
// when it states none, which agrees with any) and the longest sequence it takes (no_context_limit
// when it states none).
template <class L>
struct layer_element {
  using type = void;
};
template <class L>
requires requires { typename L::value_type; }
struct layer_element<L> {
  using type = typename L::value_type;
};
template <class L>
using layer_element_t = typename layer_element<std::remove_cvref_t<L>>::type;

template <class L>
constexpr std::size_t max_tokens_of() noexcept {
  if constexpr (requires { std::remove_cvref_t<L>::max_tokens; })
    return std::remove_cvref_t<L>::max_tokens;
  else
    return no_context_limit;
}

// The longest sequence all of the layers take.
template <class... Layers>
constexpr std::size_t min_max_tokens() noexcept {
  std::size_t limit = no_context_limit;
  for (const std::size_t each : {max_tokens_of<Layers>()...}) limit = each < limit ? each : limit;
  return limit;
}

template <class First, class...>
struct first_type {
  using type = First;
};

}  // namespace static_attention::detail
