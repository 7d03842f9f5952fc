// SPDX-License-Identifier: BSL-1.0
// Type-level truths about matrix and tensor, checked by compiling this file.
#include <cstring>
#include <type_traits>

#include <boost/hana/equal.hpp>

#include <static_attention/core/matmul.hpp>

namespace sa = static_attention;
namespace hana = boost::hana;

// --- storage guarantees ---------------------------------------------------------------
static_assert(std::is_trivially_copyable_v<sa::matrix<float, 6, 3>>);
static_assert(std::is_trivially_copyable_v<sa::tensor<double, 2, 6, 3>>);
static_assert(std::is_standard_layout_v<sa::matrix<float, 6, 3>>);
static_assert(sizeof(sa::matrix<float, 6, 3>) == 6 * 3 * sizeof(float), "no padding, no heap pointer");
static_assert(sizeof(sa::tensor<double, 2, 6, 3>) == 2 * 6 * 3 * sizeof(double));

// --- structural: a matrix can be a template argument ------------------------------------
template <sa::matrix<int, 2, 2> M>
struct holds_matrix {
  static constexpr int trace = M(0, 0) + M(1, 1);
};
static_assert(holds_matrix<sa::matrix<int, 2, 2>{{1, 2}, {3, 4}}>::trace == 5);
static_assert(!std::is_same_v<holds_matrix<sa::matrix<int, 2, 2>{{1, 2}, {3, 4}}>,
                              holds_matrix<sa::matrix<int, 2, 2>{{1, 2}, {3, 5}}>>);

// --- shape queries: constants and Hana integral constants -----------------------------
using m63 = sa::matrix<float, 6, 3>;
using t263 = sa::tensor<float, 2, 6, 3>;
static_assert(sa::rows_v<m63> == 6 && sa::cols_v<m63> == 3 && m63::rows() == 6 && m63::cols() == 3);
static_assert(sa::rows_v<const m63&> == 6);
static_assert(sa::batch_v<t263> == 2 && sa::rows_v<t263> == 6 && sa::cols_v<t263> == 3);
static_assert(hana::equal(sa::rows_c<m63>, hana::size_c<6>));
static_assert(hana::equal(m63::cols, hana::size_c<3>));
static_assert(hana::equal(sa::batch_c<t263>, hana::size_c<2>));
static_assert(std::is_same_v<sa::shape_t<m63>, sa::shape<6, 3>>);
static_assert(std::is_same_v<sa::shape_t<t263>, sa::shape<2, 6, 3>>);

// --- CTAD ------------------------------------------------------------------------------
constexpr sa::matrix deduced{{1.0, 2.0}, {3.0, 4.0}};
static_assert(std::is_same_v<decltype(deduced), const sa::matrix<double, 2, 2>>);
constexpr sa::matrix deduced_row{{1.0f, 2.0f, 3.0f}};
static_assert(std::is_same_v<decltype(deduced_row), const sa::matrix<float, 1, 3>>);

constexpr sa::tensor deduced_batch{{{1.0, 2.0}}, {{3.0, 4.0}}};
static_assert(std::is_same_v<decltype(deduced_batch), const sa::tensor<double, 2, 1, 2>>);

// --- result shapes -----------------------------------------------------------------------
static_assert(std::is_same_v<decltype(sa::matmul(m63{}, sa::matrix<float, 3, 2>{})), sa::matrix<float, 6, 2>>);
static_assert(std::is_same_v<decltype(sa::matmul(sa::matrix<float, 6, 6>{}, m63{})), m63>);
static_assert(std::is_same_v<decltype(sa::transpose(m63{})), sa::matrix<float, 3, 6>>);
static_assert(std::is_same_v<decltype(sa::row(m63{}, 0)), sa::matrix<float, 1, 3>>);
static_assert(std::is_same_v<decltype(sa::col(m63{}, 0)), sa::matrix<float, 6, 1>>);
static_assert(std::is_same_v<decltype(sa::sum(m63{})), sa::matrix<float, 6, 1>>);
static_assert(std::is_same_v<decltype(sa::matmul(t263{}, sa::tensor<float, 2, 3, 4>{})), sa::tensor<float, 2, 6, 4>>);
static_assert(std::is_same_v<decltype(sa::matmul(t263{}, sa::matrix<float, 3, 4>{})), sa::tensor<float, 2, 6, 4>>);
static_assert(std::is_same_v<decltype(sa::transpose(t263{})), sa::tensor<float, 2, 3, 6>>);

// --- the rules as concepts: detectable without a hard error -----------------------------
static_assert(sa::matmul_compatible<m63, sa::matrix<float, 3, 6>>);
static_assert(!sa::matmul_compatible<m63, m63>);
static_assert(!sa::matmul_compatible<m63, sa::matrix<double, 3, 6>>, "one element type");
static_assert(sa::matmul_compatible<t263, sa::tensor<float, 2, 3, 1>>);
static_assert(!sa::matmul_compatible<t263, sa::tensor<float, 3, 3, 1>>, "batch sizes differ");
static_assert(sa::matmul_compatible<t263, sa::matrix<float, 3, 1>>);
static_assert(sa::same_shape<m63, const m63&>);
static_assert(!sa::same_shape<m63, sa::matrix<float, 3, 6>>);
static_assert(!sa::same_shape<m63, sa::matrix<double, 6, 3>>);

// --- the matrix product is never spelled * -----------------------------------------------
// On two 6x6 matrices a * b is the element-wise product, so it cannot silently be the other one.
constexpr sa::matrix<int, 2, 2> p{{1, 2}, {3, 4}};
static_assert(p * p == sa::matrix<int, 2, 2>{{1, 4}, {9, 16}});
static_assert(sa::matmul(p, p) == sa::matrix<int, 2, 2>{{7, 10}, {15, 22}});

// --- integer and bool products: sums converted back to the element type ---------------------
constexpr sa::matrix<short, 2, 2> sp{{1, 2}, {3, 4}};
static_assert(sa::matmul(sp, sp) == sa::matrix<short, 2, 2>{{7, 10}, {15, 22}});
constexpr sa::matrix<bool, 2, 2> adjacency{{false, true}, {false, false}};
static_assert(sa::matmul(adjacency, adjacency) == sa::matrix<bool, 2, 2>{}, "no path of length 2");
static_assert(sa::matmul(sa::identity<bool, 2>(), adjacency) == adjacency);

int main() {}
