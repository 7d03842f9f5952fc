// SPDX-License-Identifier: BSL-1.0
// Constexpr and run-time truth: sum, mean, var, max and argmax through the typed calls of
// core/reduce.hpp, their result types (torch's shapes, keepdim) and their bits against torch 1.13
// (reduce_reference.hpp's fixed shapes), once in the constant evaluator and once at run time.
#include <doctest/doctest.h>

#include <bit>
#include <constexpr_check.hpp>
#include <cstdint>
#include <static_attention/core/reduce.hpp>
#include <type_traits>

#include "reduce_reference.hpp"

namespace {

namespace sa = static_attention;
namespace ref = reference::reduce;

// The generator of gen_reduce_reference.py, into any of the library's fixed-shape types.
template <class M>
constexpr M from_seed(std::uint64_t seed) {
  M m;
  std::uint64_t state = seed;
  for (auto& v : m.elems) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto k = static_cast<std::int64_t>((state >> 40) & 0xFFFFFFu);
    const auto e = static_cast<int>((state >> 20) % 17);
    double scale = 1;
    for (int i = 0; i < 35 - e; ++i) scale /= 2;
    v = static_cast<float>(static_cast<double>(k - (std::int64_t{1} << 23)) * scale);
  }
  return m;
}

template <class R, std::size_t N>
constexpr bool same_bits(const R& r, const std::uint32_t (&expected)[N]) {
  static_assert(R::size == N);
  for (std::size_t k = 0; k < N; ++k)
    if (std::bit_cast<std::uint32_t>(r.elems[k]) != expected[k]) return false;
  return true;
}

template <class R, std::size_t N>
constexpr bool same_values(const R& r, const std::int64_t (&expected)[N]) {
  static_assert(R::size == N);
  for (std::size_t k = 0; k < N; ++k)
    if (r.elems[k] != expected[k]) return false;
  return true;
}

// Every reduction of one fixed shape, against torch's bits.
#define SA_REDUCE_CASE(name, seed)                                                                       \
  constexpr bool name##_matches_torch() {                                                                \
    const auto x = from_seed<name##_type>(seed);                                                         \
    return same_bits(sa::sum(x, sa::all_dims), ref::name##_sum_all) &&                                   \
           same_bits(sa::mean(x), ref::name##_mean_all) && same_bits(sa::var(x), ref::name##_var_all) && \
           same_bits(sa::max(x, sa::all_dims), ref::name##_max_all) &&                                   \
           same_bits(sa::sum(x, sa::dim<0>), ref::name##_sum_first) &&                                   \
           same_bits(sa::sum(x, sa::dim<-1>), ref::name##_sum_last) &&                                   \
           same_bits(sa::mean(x, sa::dim<-1>), ref::name##_mean_last) &&                                 \
           same_bits(sa::var(x, sa::dim<-1>), ref::name##_var_last) &&                                   \
           same_bits(sa::var(x, sa::dim<-1>, false), ref::name##_var_last_biased) &&                     \
           same_bits(sa::var(x, sa::dim<0>), ref::name##_var_first) &&                                   \
           same_bits(sa::max(x, sa::dim<0>), ref::name##_max_first) &&                                   \
           same_values(sa::argmax(x, sa::dim<-1>), ref::name##_argmax_last) &&                           \
           sa::argmax(x, sa::all_dims).item() == ref::name##_argmax_all;                                 \
  }

using m6x6_type = sa::matrix<float, 6, 6>;
using m5x70_type = sa::matrix<float, 5, 70>;
using t2x3x40_type = sa::tensor<float, 2, 3, 40>;
using v17_type = sa::vector<float, 17>;
SA_REDUCE_CASE(m6x6, 11)
SA_REDUCE_CASE(m5x70, 12)
SA_REDUCE_CASE(t2x3x40, 13)
SA_REDUCE_CASE(v17, 14)
#undef SA_REDUCE_CASE

TEST_CASE("reductions of fixed shapes equal torch 1.13's bits, at compile time and at run time") {
  SA_CHECK_BOTH(m6x6_matches_torch());
  SA_CHECK_BOTH(m5x70_matches_torch());
  SA_CHECK_BOTH(t2x3x40_matches_torch());
  SA_CHECK_BOTH(v17_matches_torch());
}

// Type-level truth: the results have torch's shapes.
using m = sa::matrix<float, 2, 6>;
using t = sa::tensor<float, 2, 4, 3>;
static_assert(std::is_same_v<decltype(sa::sum(m{}, sa::all_dims)), sa::scalar<float>>);
static_assert(std::is_same_v<decltype(sa::sum(m{}, sa::dim<-1>)), sa::vector<float, 2>>);
static_assert(std::is_same_v<decltype(sa::sum(m{}, sa::dim<1>, sa::keepdim)), sa::matrix<float, 2, 1>>);
static_assert(std::is_same_v<decltype(sa::mean(m{}, sa::dim<0>, sa::keepdim)), sa::matrix<float, 1, 6>>);
static_assert(std::is_same_v<decltype(sa::var(t{}, sa::dim<1>)), sa::matrix<float, 2, 3>>);
static_assert(std::is_same_v<decltype(sa::var(t{}, sa::dim<0>, sa::keepdim)), sa::tensor<float, 1, 4, 3>>);
static_assert(std::is_same_v<decltype(sa::argmax(t{}, sa::dim<-1>)), sa::matrix<std::int64_t, 2, 4>>);
static_assert(std::is_same_v<decltype(sa::sum(sa::vector<float, 3>{})), sa::scalar<float>>);
static_assert(std::is_same_v<decltype(sa::sum(sa::vector<float, 3>{}, sa::dim<0>)), sa::scalar<float>>);
// The older row sums of matrix.hpp still compile, with their R x 1 column.
static_assert(std::is_same_v<decltype(sa::sum(m{})), sa::matrix<float, 2, 1>>);

// The book's case: torch prints the 6-element softmax row's sum as tensor(1.); max and argmax
// take the first of equal values, and a NaN wins.
constexpr bool ties_and_nan() {
  const sa::vector<float, 4> v{{1.0f, 3.0f, 3.0f, 2.0f}};
  const sa::vector<float, 3> w{{1.0f, __builtin_nanf(""), 5.0f}};
  const auto mw = sa::max(w, sa::all_dims).item();
  return sa::argmax(v, sa::all_dims).item() == 1 && sa::argmax(w, sa::all_dims).item() == 1 && mw != mw;
}
TEST_CASE("max and argmax take the first maximum, and a NaN") { SA_CHECK_BOTH(ties_and_nan()); }

}  // namespace
