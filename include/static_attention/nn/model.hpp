// SPDX-License-Identifier: BSL-1.0
// Whole-model shape checking: a model is a Hana tuple of layers, and a fold carries the shape
// through them at compile time, naming the layer where the chain breaks.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <boost/hana/equal.hpp>  // output_shape(...) == hana::type_c<...>
#include <boost/hana/fold_left.hpp>
#include <boost/hana/integral_constant.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/shape_rules.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/detail/attention_checks.hpp>

namespace static_attention {

/// A layer: maps N x in_features to N x out_features (any N), like the attention modules and
/// linear_layer.
template <class L>
concept layer = requires {
  { std::remove_cvref_t<L>::in_features } -> std::convertible_to<std::size_t>;
  { std::remove_cvref_t<L>::out_features } -> std::convertible_to<std::size_t>;
};

/// The position of a layer in a model, as it appears in diagnostics.
template <std::size_t Index>
struct layer_index {};

/// Layer `Index` receives the shape the previous layer produced: `layer_input_fits<layer_index<2>,
/// shape<6, 4>, shape<6, 3>>` is false (the chain breaks at layer 2: 6 x 4 meets 6 x 3).
template <class Index, class Given, class Expected>
inline constexpr bool layer_input_fits = std::is_same_v<Given, Expected>;

/// Layer `Index` receives the element type the previous layer (or the input) produced:
/// `layer_element_types_match<layer_index<1>, float, double>` is false (a float layer feeds a
/// double one).
template <class Index, class Given, class Expected>
inline constexpr bool layer_element_types_match = std::is_same_v<Given, Expected>;

/// Layer `Index` takes at most its context length of tokens:
/// `layer_tokens_within_context_length<layer_index<0>, 20, 16>` is false.
template <class Index, std::size_t Tokens, std::size_t ContextLength>
inline constexpr bool layer_tokens_within_context_length = Tokens <= ContextLength;

/// A model: layers applied in order, held in a Hana tuple (`hana::make_tuple(l1, l2, ...)` works too).
template <layer... Layers>
constexpr boost::hana::tuple<Layers...> make_model(const Layers&... layers) noexcept {
  return boost::hana::make_tuple(layers...);
}

namespace detail {
inline constexpr std::size_t no_break = static_cast<std::size_t>(-1);

// What breaks a chain of layers, at layer `index`.
enum class chain_problem { none, features, element_type, context_length };
struct chain_break {
  std::size_t index = no_break;
  chain_problem problem = chain_problem::none;
};

template <std::size_t I, class First, class... Rest>
struct nth_type : nth_type<I - 1, Rest...> {};
template <class First, class... Rest>
struct nth_type<0, First, Rest...> {
  using type = First;
};

// Two element types agree unless both are known (void: an input of unknown type, or a layer that
// states none) and differ.
template <class Given, class Expected>
inline constexpr bool element_types_agree =
    std::is_void_v<Given> || std::is_void_v<Expected> || std::is_same_v<Given, Expected>;

// Whether each layer takes the element type that reaches it: In for the first, then each layer's.
template <class In, class... Layers, std::size_t... I>
constexpr auto element_types_fit(std::index_sequence<I...>) noexcept {
  return std::array<bool, sizeof...(Layers)>{
      element_types_agree<typename nth_type<I, In, layer_element_t<Layers>...>::type, layer_element_t<Layers>>...};
}

// The first layer that cannot take what reaches it, N tokens of In elements and D features (In is
// void when unknown), or no break. A layer's features are checked first, then its element type,
// then its context length: the same rules, in the same order, as running it.
template <class In, std::size_t N, std::size_t D, class... Layers>
constexpr chain_break first_break() noexcept {
  constexpr std::size_t takes[] = {Layers::in_features..., 0};
  constexpr std::size_t gives[] = {D, Layers::out_features...};
  constexpr std::size_t limits[] = {max_tokens_of<Layers>()..., 0};
  constexpr auto types_fit = element_types_fit<In, Layers...>(std::index_sequence_for<Layers...>{});
  for (std::size_t i = 0; i < sizeof...(Layers); ++i) {
    if (takes[i] != gives[i]) return {i, chain_problem::features};
    if (!types_fit[i]) return {i, chain_problem::element_type};
    if (N > limits[i]) return {i, chain_problem::context_length};
  }
  return {};
}

// A function of its own, so that the diagnostic shows the context length as a number.
template <std::size_t I, std::size_t N, std::size_t ContextLength>
constexpr void check_context_length() noexcept {
  static_assert(layer_tokens_within_context_length<layer_index<I>, N, ContextLength>,
                "model: a layer with a context_length takes at most that many tokens "
                "(layer_tokens_within_context_length<layer, tokens, context_length>)");
}

// One static_assert for the whole chain, so the diagnostic is short and names the layer.
template <class In, std::size_t N, std::size_t D, class... Layers>
constexpr void check_chain() noexcept {
  constexpr chain_break broken = first_break<In, N, D, Layers...>();
  constexpr std::size_t i = broken.index;
  if constexpr (broken.problem == chain_problem::features) {
    constexpr std::size_t takes[] = {Layers::in_features...};
    constexpr std::size_t gives[] = {D, Layers::out_features...};
    static_assert(layer_input_fits<layer_index<i>, shape<N, gives[i]>, shape<N, takes[i]>>,
                  "model: each layer takes N x in_features, and the output of the layer before does not fit "
                  "(layer_input_fits<layer, what reaches it, what it takes>)");
  } else if constexpr (broken.problem == chain_problem::element_type) {
    using given = typename nth_type<i, In, layer_element_t<Layers>...>::type;
    using expected = layer_element_t<typename nth_type<i, Layers...>::type>;
    static_assert(layer_element_types_match<layer_index<i>, given, expected>,
                  "model: each layer takes the element type the layer before (or the input) produces "
                  "(layer_element_types_match<layer, what reaches it, what it takes>); make every layer float or "
                  "every layer double, or convert the input with map()");
  } else if constexpr (broken.problem == chain_problem::context_length) {
    check_context_length<i, N, max_tokens_of<typename nth_type<i, Layers...>::type>()>();
  }
}

// The fold's step on values: the next layer applied to what the previous ones produced.
struct apply_layer {
  template <class Value, class Layer>
  constexpr auto operator()(const Value& value, const Layer& next) const noexcept {
    return next(value);
  }
};

// The fold's step on shapes: shape<N, D> -> shape<N, out_features> (check_chain has checked the
// rest).
struct shape_step {
  template <std::size_t N, std::size_t D, class LayerType>
  constexpr auto operator()(boost::hana::basic_type<shape<N, D>>, LayerType) const noexcept {
    return boost::hana::type_c<shape<N, LayerType::type::out_features>>;
  }
};
}  // namespace detail

/// The output shape of `model` for an input of shape `in`, computed by a fold over the layers'
/// types: `output_shape(model, hana::type_c<shape<6, 3>>) == hana::type_c<shape<6, 2>>`.
/// It applies forward's rules: a chain that breaks (features that do not fit, layers of
/// different element types, more tokens than a layer's context length) fails to compile, naming
/// the layer index and the rule; the check runs before the fold, so the diagnostic is one
/// static_assert deep.
template <class... Layers, std::size_t N, std::size_t D>
constexpr auto output_shape(const boost::hana::tuple<Layers...>&, boost::hana::basic_type<shape<N, D>>) noexcept {
  detail::check_chain<void, N, D, Layers...>();
  return boost::hana::fold_left(boost::hana::tuple_t<Layers...>, boost::hana::type_c<shape<N, D>>,
                                detail::shape_step{});
}

/// Runs the model's layers in order on a sequence or a batch, with the same shape check.
template <class... Layers, class X>
constexpr auto forward(const boost::hana::tuple<Layers...>& model, const X& x) noexcept {
  // Checks the whole chain first, so a break reports its layer, and no layer runs on a bad shape.
  detail::check_chain<value_type_t<X>, rows_v<X>, cols_v<X>, Layers...>();
  if constexpr (detail::first_break<value_type_t<X>, rows_v<X>, cols_v<X>, Layers...>().problem ==
                detail::chain_problem::none) {
    return boost::hana::fold_left(model, x, detail::apply_layer{});
  } else {
    return x;
  }
}

}  // namespace static_attention
