// SPDX-License-Identifier: BSL-1.0
// Named dimensions, type-level truths: names travel through matmul, transpose and softmax,
// unnamed dimensions agree with any name, and mismatched names are detectable.
#include <type_traits>

#include <static_attention/core/named.hpp>

namespace sa = static_attention;
using namespace sa::dims;

using x_t = sa::named<sa::matrix<float, 6, 6>, tokens, d_in>;
using w_t = sa::named<sa::matrix<float, 6, 6>, d_in, d_out>;

// --- names travel with the shapes -----------------------------------------------------------
using queries_t = decltype(sa::matmul(x_t{}, w_t{}));
static_assert(std::is_same_v<queries_t, sa::named<sa::matrix<float, 6, 6>, tokens, d_out>>);
using scores_t = decltype(sa::matmul(queries_t{}, sa::transpose(queries_t{})));
static_assert(std::is_same_v<scores_t, sa::named<sa::matrix<float, 6, 6>, tokens, tokens>>);
static_assert(std::is_same_v<decltype(sa::softmax(scores_t{})), scores_t>);
static_assert(std::is_same_v<decltype(sa::transpose(w_t{})), sa::named<sa::matrix<float, 6, 6>, d_out, d_in>>);

// --- names and no names mix: an unnamed dimension agrees with any name --------------------
using plain = sa::matrix<float, 6, 2>;
static_assert(std::is_same_v<decltype(sa::matmul(scores_t{}, plain{})), sa::named<plain, tokens, sa::unnamed>>);
static_assert(std::is_same_v<decltype(sa::matmul(sa::matrix<float, 3, 6>{}, x_t{})),
                             sa::named<sa::matrix<float, 3, 6>, sa::unnamed, d_in>>);
static_assert(std::is_same_v<decltype(x_t{} + sa::matrix<float, 6, 6>{}), x_t>);
static_assert(std::is_same_v<decltype(sa::name<sa::unnamed, d_in>(sa::matrix<float, 6, 6>{}) + x_t{}), x_t>,
              "an unnamed row takes the other operand's name");

// --- the rule ---------------------------------------------------------------------------------
static_assert(sa::dim_names_match<tokens, tokens>);
static_assert(sa::dim_names_match<tokens, sa::unnamed> && sa::dim_names_match<sa::unnamed, d_out>);
static_assert(!sa::dim_names_match<d_in, d_out>);
static_assert(!sa::some_named<sa::matrix<float, 2, 2>, sa::matrix<float, 2, 2>>, "plain matmul is untouched");
static_assert(!sa::some_named<x_t, float>);

// --- batches carry names on their last two dimensions ----------------------------------------
using batch_t = sa::named<sa::tensor<float, 2, 6, 3>, tokens, d_in>;
static_assert(std::is_same_v<decltype(sa::matmul(batch_t{}, sa::name<d_in, d_out>(sa::matrix<float, 3, 2>{}))),
                             sa::named<sa::tensor<float, 2, 6, 2>, tokens, d_out>>);

int main() {}
