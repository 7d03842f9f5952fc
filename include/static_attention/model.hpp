// Whole-model shape checking: a model is a Hana tuple of layers, and a fold carries the shape
// through them at compile time, naming the layer where the chain breaks.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <boost/hana/equal.hpp>  // output_shape(...) == hana::type_c<...>
#include <boost/hana/fold_left.hpp>
#include <boost/hana/integral_constant.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <static_attention/matrix.hpp>
#include <static_attention/shape_rules.hpp>
#include <static_attention/tensor.hpp>

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

/// A model: layers applied in order, held in a Hana tuple (`hana::make_tuple(l1, l2, ...)` works too).
template <layer... Layers>
constexpr boost::hana::tuple<Layers...> make_model(const Layers&... layers) noexcept {
  return boost::hana::make_tuple(layers...);
}

namespace detail {
inline constexpr std::size_t no_break = static_cast<std::size_t>(-1);

// The first layer whose in_features differs from what reaches it, or no_break.
template <std::size_t D, class... Layers>
constexpr std::size_t first_break() noexcept {
  constexpr std::size_t takes[] = {Layers::in_features...};
  constexpr std::size_t gives[] = {D, Layers::out_features...};
  for (std::size_t i = 0; i < sizeof...(Layers); ++i)
    if (takes[i] != gives[i]) return i;
  return no_break;
}

// One static_assert for the whole chain, so the diagnostic is short and names the layer.
template <std::size_t N, std::size_t D, class... Layers>
constexpr void check_chain() noexcept {
  constexpr std::size_t broken = first_break<D, Layers...>();
  if constexpr (broken != no_break) {
    constexpr std::size_t takes[] = {Layers::in_features...};
    constexpr std::size_t gives[] = {D, Layers::out_features...};
    static_assert(layer_input_fits<layer_index<broken>, shape<N, gives[broken]>, shape<N, takes[broken]>>,
                  "model: each layer takes N x in_features, and the output of the layer before does not fit "
                  "(layer_input_fits<layer, what reaches it, what it takes>)");
  }
}

// The fold's step on values: the next layer applied to what the previous ones produced.
struct apply_layer {
  template <class Value, class Layer>
  constexpr auto operator()(const Value& value, const Layer& next) const noexcept {
    return next(value);
  }
};

// The fold's step on shapes: shape<N, D> -> shape<N, out_features>.
struct shape_step {
  template <std::size_t N, std::size_t D, class LayerType>
  constexpr auto operator()(boost::hana::basic_type<shape<N, D>>, LayerType) const noexcept {
    return boost::hana::type_c<shape<N, LayerType::type::out_features>>;
  }
};
}  // namespace detail

/// The output shape of `model` for an input of shape `in`, computed by a fold over the layers'
/// types: `output_shape(model, hana::type_c<shape<6, 3>>) == hana::type_c<shape<6, 2>>`.
/// A chain that breaks fails to compile, naming the layer index and the two shapes; the check
/// runs before the fold, so the diagnostic is one static_assert deep.
template <class... Layers, std::size_t N, std::size_t D>
constexpr auto output_shape(const boost::hana::tuple<Layers...>&, boost::hana::basic_type<shape<N, D>>) noexcept {
  detail::check_chain<N, D, Layers...>();
  return boost::hana::fold_left(boost::hana::tuple_t<Layers...>, boost::hana::type_c<shape<N, D>>,
                                detail::shape_step{});
}

/// Runs the model's layers in order on a sequence or a batch, with the same shape check.
template <class... Layers, class X>
constexpr auto forward(const boost::hana::tuple<Layers...>& model, const X& x) noexcept {
  // Checks the whole chain first, so a break reports its layer, and no layer runs on a bad shape.
  detail::check_chain<rows_v<X>, cols_v<X>, Layers...>();
  if constexpr (detail::first_break<cols_v<X>, Layers...>() == detail::no_break) {
    return boost::hana::fold_left(model, x, detail::apply_layer{});
  } else {
    return x;
  }
}

}  // namespace static_attention
