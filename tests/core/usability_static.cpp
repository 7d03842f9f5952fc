// SPDX-License-Identifier: BSL-1.0
// Type-level truths about what a user writes after the tutorial (issue #17), checked by
// compiling this file: element access on temporaries, broadcasting shapes, a scalar on the left
// of /, deduction guides of the modules, integer arguments to the math, and model folds that
// apply forward's rules.
#include <type_traits>

#include <boost/hana/equal.hpp>
#include <boost/hana/type.hpp>

#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/model.hpp>
#include <static_attention/static_attention.hpp>

namespace sa = static_attention;
namespace hana = boost::hana;

// --- element access on a temporary reads, and cannot write ------------------------------
// t[b] and row(m, i) are copies: a write to one would be lost, so it does not compile.
template <class M>
concept writable_temporary_element = requires(M m) {
  std::move(m)(0, 0) = 1;
};
template <class M>
concept writable_element = requires(M m) {
  m(0, 0) = 1;
};
static_assert(!writable_temporary_element<sa::matrix<float, 2, 2>>);
static_assert(writable_element<sa::matrix<float, 2, 2>>);
template <class T>
concept writable_item_element = requires(T t) {
  t[0](1, 1) = 5.0f;
};
template <class M>
concept writable_row_element = requires(M m) {
  sa::row(m, 0)(0, 0) = 7.0f;
};
static_assert(!writable_item_element<sa::tensor<float, 2, 2, 2>>);
static_assert(!writable_row_element<sa::matrix<float, 2, 2>>);
static_assert(requires(sa::tensor<float, 2, 2, 2> t) { t(0, 1, 1) = 5.0f; });
// Reads from temporaries work, and give values, not references.
static_assert(sa::matmul(sa::identity<int, 2>(), sa::matrix<int, 2, 2>{{1, 2}, {3, 4}})(1, 0) == 3);
static_assert(std::is_same_v<decltype(sa::row(sa::matrix<float, 2, 2>{}, 0)(0, 0)), const float&>);
static_assert(sa::tensor<int, 2, 1, 1>{{{1}}, {{2}}}[1](0, 0) == 2);

// --- element types -------------------------------------------------------------------------
static_assert(sa::is_plain_element<float> && sa::is_plain_element<bool>);
static_assert(!sa::is_plain_element<const float> && !sa::is_plain_element<volatile int>);
static_assert(sa::is_floating_element<float> && sa::is_floating_element<double>);
static_assert(!sa::is_floating_element<long double>, "the library's math is float and double");

// --- broadcasting a 1 x C row, and a scalar on the left of / -------------------------------
using m32 = sa::matrix<float, 3, 2>;
using row2 = sa::matrix<float, 1, 2>;
using t232 = sa::tensor<float, 2, 3, 2>;
static_assert(std::is_same_v<decltype(m32{} + row2{}), m32>);
static_assert(std::is_same_v<decltype(row2{} - m32{}), m32>);
static_assert(std::is_same_v<decltype(t232{} * row2{}), t232>);
static_assert(std::is_same_v<decltype(row2{} / t232{}), t232>);
static_assert(std::is_same_v<decltype(row2{} + row2{}), row2>);
static_assert(std::is_same_v<decltype(1.0f / m32{}), m32>);
static_assert(sa::row_broadcast_fits<sa::shape<3, 2>, sa::shape<1, 2>>);
static_assert(sa::row_broadcast_fits<sa::shape<2, 3, 2>, sa::shape<1, 2>>);
static_assert(!sa::row_broadcast_fits<sa::shape<3, 2>, sa::shape<1, 3>>);
static_assert(!sa::row_broadcast_fits<sa::shape<3, 2>, sa::shape<3, 1>>, "a column does not broadcast");

// --- deduction guides of the modules ---------------------------------------------------------
constexpr sa::matrix<float, 3, 2> w{};
constexpr sa::self_attention att{w, w, w};
constexpr sa::causal_attention causal{w, w, w};
constexpr sa::causal_attention causal_dropout{w, w, w, 0.5f};
constexpr sa::linear_layer linear{w, row2{}};
static_assert(std::is_same_v<decltype(att), const sa::self_attention<float, 3, 2>>);
static_assert(std::is_same_v<decltype(causal), const sa::causal_attention<float, 3, 2>>);
static_assert(std::is_same_v<decltype(causal_dropout), const sa::causal_attention<float, 3, 2>>);
static_assert(std::is_same_v<decltype(linear), const sa::linear_layer<float, 3, 2>>);
static_assert(causal_dropout.dropout_p == 0.5f);

// --- integer arguments to the math are doubles, as in <cmath> ------------------------------
static_assert(sa::sqrt(8) == sa::sqrt(8.0) && std::is_same_v<decltype(sa::sqrt(8)), double>);
static_assert(sa::exp(0) == 1.0 && sa::log(1u) == 0.0 && sa::tanh(0L) == 0.0);
static_assert(sa::sqrt(16) == 4.0);

// --- what model folds read from a layer --------------------------------------------------------
static_assert(std::is_same_v<sa::self_attention<float, 3, 2>::value_type, float>);
static_assert(sa::causal_attention<double, 8, 4, 16>::max_tokens == 16);
static_assert(sa::multi_head_attention<float, 4, 4, 2, 10>::max_tokens == 10);
using wrapper = decltype(sa::make_multi_head_attention_wrapper(sa::causal_attention<float, 3, 2, 12>{},
                                                               sa::causal_attention<float, 3, 2, 9>{}));
static_assert(wrapper::max_tokens == 9 && std::is_same_v<wrapper::value_type, float>);

// output_shape applies forward's rules: up to the context length it folds...
constexpr auto model = sa::make_model(sa::causal_attention<float, 8, 4, 16>{}, sa::linear_layer<float, 4, 2>{});
static_assert(sa::output_shape(model, hana::type_c<sa::shape<16, 8>>) == hana::type_c<sa::shape<16, 2>>);
static_assert(sa::output_shape(model, hana::type_c<sa::shape<1, 8>>) == hana::type_c<sa::shape<1, 2>>);
// ...and beyond it, or across element types, it names the layer (tests/compile_fail/model_*.cpp).
static_assert(sa::layer_tokens_within_context_length<sa::layer_index<0>, 16, 16>);
static_assert(!sa::layer_tokens_within_context_length<sa::layer_index<0>, 20, 16>);
static_assert(!sa::layer_element_types_match<sa::layer_index<1>, float, double>);

int main() {}
