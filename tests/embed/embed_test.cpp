// SPDX-License-Identifier: BSL-1.0
// Models out: weights numpy wrote, embedded by tools/embed_weights at build time. Type-level
// truth (the shapes are in the types), constexpr truth (bit-exact values, a product computed by
// the compiler), and run-time truth (the same checks again, and agreement with load_npy).
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>

#include <static_attention/core/matmul.hpp>
#include <static_attention/io/npy.hpp>
#include <test_model/weights.hpp>

#include "constexpr_check.hpp"
#include "embed_reference.hpp"

namespace sa = static_attention;
namespace w = test_model::weights;
namespace ref = embed_reference;

// Type-level: each variable's type states the shape and dtype numpy wrote.
static_assert(std::is_same_v<decltype(w::w_in), const sa::matrix<float, 4, 3>>);
static_assert(std::is_same_v<decltype(w::w_out), const sa::matrix<float, 3, 5>>);
static_assert(std::is_same_v<decltype(w::bias), const sa::matrix<float, 1, 5>>);  // 1-D (5,) is a row
static_assert(std::is_same_v<decltype(w::w_f8), const sa::matrix<double, 2, 2>>);
static_assert(std::is_same_v<decltype(w::batch), const sa::tensor<double, 2, 2, 3>>);
static_assert(std::is_same_v<decltype(w::special), const sa::matrix<float, 1, 6>>);
static_assert(std::is_same_v<decltype(w::tall), const sa::matrix<float, 257, 1>>);
static_assert(std::is_same_v<decltype(w::deep), const sa::tensor<float, 257, 1, 1>>);

namespace {

template <class M, class Bits, std::size_t N>
constexpr bool same_bits(const M& m, const Bits (&bits)[N]) {
  if (N != M::size) return false;
  for (std::size_t k = 0; k < N; ++k)
    if (std::bit_cast<Bits>(m.elems[k]) != bits[k]) return false;
  return true;
}

constexpr bool values_are_bit_exact() {
  return same_bits(w::w_in, ref::w_in) && same_bits(w::w_out, ref::w_out) && same_bits(w::bias, ref::bias) &&
         same_bits(w::w_f8, ref::w_f8) && same_bits(w::batch, ref::batch) &&
         // more than 256 rows or items: written as a flat array, not braced rows
         same_bits(w::tall, ref::tall) && same_bits(w::deep, ref::deep);
}

// -0.0, a subnormal, infinities and a NaN with a payload: what a decimal or lossy literal would break.
constexpr bool special_values_are_bit_exact() {
  return same_bits(w::special, ref::special) && ref::special[5] == 0x7fc00123u && ref::special[0] == 0x80000000u;
}

// numpy's float64 product of the same float32 values; float accumulation stays within 1e-6.
constexpr bool product_matches_numpy() {
  constexpr auto product = sa::matmul(w::w_in, w::w_out);
  static_assert(std::is_same_v<decltype(product), const sa::matrix<float, 4, 5>>);
  for (std::size_t k = 0; k < 20; ++k) {
    const double d = static_cast<double>(product.elems[k]) - ref::w_in_w_out[k];
    if (d > 1e-6 || d < -1e-6) return false;
  }
  return true;
}

std::string fixture(const char* file) { return std::string{SA_EMBED_FIXTURES_DIR} + "/" + file; }

}  // namespace

TEST_CASE("embedded values are bit-exactly what numpy wrote") {
  SA_CHECK_BOTH(values_are_bit_exact());
  SA_CHECK_BOTH(special_values_are_bit_exact());
}

TEST_CASE("the compiler multiplies embedded matrices as numpy does") { SA_CHECK_BOTH(product_matches_numpy()); }

TEST_CASE("embedded weights equal the ones load_npy reads from the same files") {
  CHECK(sa::load_npy<sa::matrix<float, 4, 3>>(fixture("w_in.npy")).value() == w::w_in);
  CHECK(sa::load_npy<sa::matrix<float, 1, 5>>(fixture("bias.npy")).value() == w::bias);
  CHECK(sa::load_npy<sa::tensor<double, 2, 2, 3>>(fixture("batch.npy")).value() == w::batch);
  // NaN != NaN, so compare special values by their bits.
  CHECK(same_bits(sa::load_npy<sa::matrix<float, 1, 6>>(fixture("special.npy")).value(), ref::special));
}
