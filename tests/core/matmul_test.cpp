// SPDX-License-Identifier: BSL-1.0
// matmul against numpy: plain, batched, and batch times matrix; transpose against numpy too.
#include <static_attention/core/matmul.hpp>

#include "constexpr_check.hpp"
#include "matmul_reference.hpp"
#include "reference_support.hpp"

namespace sa = static_attention;
namespace ref = reference::matmul;
using test_support::to_matrix;
using test_support::to_tensor;

namespace {

// Double operands: numpy's float64 product within 1e-12.
template <std::size_t R, std::size_t K, std::size_t C>
constexpr bool matches_numpy(const double (&a)[R * K], const double (&b)[K * C], const double (&ab)[R * C]) {
  const auto got = sa::matmul(to_matrix<double, R, K>(a), to_matrix<double, K, C>(b));
  return sa::approx_equal(got, to_matrix<double, R, C>(ab), 1e-12);
}

// Float operands: numpy's float64 product of the same float32 values, within 1e-6.
template <std::size_t R, std::size_t K, std::size_t C>
constexpr bool matches_numpy_float(const double (&a)[R * K], const double (&b)[K * C], const double (&ab)[R * C]) {
  const auto got = sa::matmul(to_matrix<float, R, K>(a), to_matrix<float, K, C>(b));
  return sa::approx_equal(got, to_matrix<float, R, C>(ab), 1e-6f);
}

constexpr bool plain_products() {
  return matches_numpy<1, 1, 1>(ref::p1x1x1_a, ref::p1x1x1_b, ref::p1x1x1_ab) &&
         matches_numpy<3, 5, 2>(ref::p3x5x2_a, ref::p3x5x2_b, ref::p3x5x2_ab) &&
         matches_numpy<6, 3, 6>(ref::p6x3x6_a, ref::p6x3x6_b, ref::p6x3x6_ab) &&
         matches_numpy<7, 13, 4>(ref::p7x13x4_a, ref::p7x13x4_b, ref::p7x13x4_ab) &&
         matches_numpy<16, 16, 16>(ref::p16x16x16_a, ref::p16x16x16_b, ref::p16x16x16_ab) &&
         matches_numpy<2, 64, 3>(ref::p2x64x3_a, ref::p2x64x3_b, ref::p2x64x3_ab);
}

constexpr bool plain_products_float() {
  return matches_numpy_float<3, 5, 2>(ref::p3x5x2_af, ref::p3x5x2_bf, ref::p3x5x2_abf) &&
         matches_numpy_float<7, 13, 4>(ref::p7x13x4_af, ref::p7x13x4_bf, ref::p7x13x4_abf) &&
         matches_numpy_float<16, 16, 16>(ref::p16x16x16_af, ref::p16x16x16_bf, ref::p16x16x16_abf);
}

constexpr bool transpose_matches_numpy() {
  return sa::transpose(to_matrix<double, 7, 13>(ref::p7x13x4_a)) == to_matrix<double, 13, 7>(ref::p7x13x4_at) &&
         sa::transpose(sa::transpose(to_matrix<double, 3, 5>(ref::p3x5x2_a))) == to_matrix<double, 3, 5>(ref::p3x5x2_a);
}

constexpr bool batched_products() {
  const auto a = to_tensor<double, 3, 4, 5>(ref::b3x4x5x6_a);
  const auto b = to_tensor<double, 3, 5, 6>(ref::b3x4x5x6_b);
  const auto w = to_matrix<double, 5, 6>(ref::b3x4x5x6_w);
  const auto a1 = to_tensor<double, 1, 6, 3>(ref::b1x6x3x2_a);
  const auto w1 = to_matrix<double, 3, 2>(ref::b1x6x3x2_w);
  return sa::approx_equal(sa::matmul(a, b), to_tensor<double, 3, 4, 6>(ref::b3x4x5x6_ab), 1e-12) &&
         sa::approx_equal(sa::matmul(a, w), to_tensor<double, 3, 4, 6>(ref::b3x4x5x6_aw), 1e-12) &&
         sa::approx_equal(sa::matmul(a1, w1), to_tensor<double, 1, 6, 2>(ref::b1x6x3x2_aw), 1e-12);
}

constexpr bool identity_is_neutral() {
  const auto a = to_matrix<double, 7, 13>(ref::p7x13x4_a);
  return sa::matmul(a, sa::identity<double, 13>()) == a && sa::matmul(sa::identity<double, 7>(), a) == a;
}

}  // namespace

TEST_CASE("matmul(double) equals numpy within 1e-12") { SA_CHECK_BOTH(plain_products()); }
TEST_CASE("matmul(float) equals numpy within 1e-6") { SA_CHECK_BOTH(plain_products_float()); }
TEST_CASE("transpose equals numpy's .T") { SA_CHECK_BOTH(transpose_matches_numpy()); }
TEST_CASE("batched matmul equals numpy.matmul") { SA_CHECK_BOTH(batched_products()); }
TEST_CASE("the identity is neutral on both sides") { SA_CHECK_BOTH(identity_is_neutral()); }
