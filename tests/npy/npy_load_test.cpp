// SPDX-License-Identifier: BSL-1.0
// Run-time truth: .npy files written by numpy load bit-exactly into the matrix or tensor type
// that states their shape, in format versions 1.0, 2.0 and 3.0, float32 and float64.
#include <cstddef>
#include <memory>
#include <vector>

#include "fixture_values.hpp"
#include "npy_test_support.hpp"

namespace sa = static_attention;
namespace fx = npy_fixtures;
using npy_test::fixture;
using npy_test::same_bits;

// Type-level: only float and double matrices and tensors, unqualified, can be loaded.
static_assert(sa::npy_loadable<sa::matrix<float, 3, 2>> && sa::npy_loadable<sa::tensor<double, 1, 2, 3>>);
static_assert(!sa::npy_loadable<sa::matrix<int, 3, 2>> && !sa::npy_loadable<sa::matrix<long double, 3, 2>>);
static_assert(!sa::npy_loadable<const sa::matrix<float, 3, 2>> && !sa::npy_loadable<float>);
template <class M>
concept can_load = requires {
  sa::load_npy<M>("w.npy");
};
static_assert(can_load<sa::matrix<float, 3, 2>> && !can_load<sa::matrix<int, 3, 2>>);

TEST_CASE("version 1.0 float32 and float64 load bit-exactly") {
  const auto f4 = sa::load_npy<sa::matrix<float, 3, 2>>(fixture("v1_f4_3x2.npy"));
  REQUIRE(f4.has_value());
  CHECK(same_bits(f4.value(), fx::v1_f4_3x2));
  const auto f8 = sa::load_npy<sa::matrix<double, 2, 3>>(fixture("v1_f8_2x3.npy"));
  REQUIRE(f8);
  CHECK(same_bits(f8.value(), fx::v1_f8_2x3));
}

TEST_CASE("version 2.0 and 3.0 files load bit-exactly") {
  const auto v2 = sa::load_npy<sa::matrix<float, 2, 4>>(fixture("v2_f4_2x4.npy"));
  REQUIRE(v2);
  CHECK(same_bits(v2.value(), fx::v2_f4_2x4));
  const auto v3 = sa::load_npy<sa::matrix<double, 3, 3>>(fixture("v3_f8_3x3.npy"));
  REQUIRE(v3);
  CHECK(same_bits(v3.value(), fx::v3_f8_3x3));
}

TEST_CASE("a 1-D array of C elements loads into a 1 x C matrix, as a bias") {
  const auto bias = sa::load_npy<sa::matrix<float, 1, 6>>(fixture("bias_f4_6.npy"));
  REQUIRE(bias);
  CHECK(same_bits(bias.value(), fx::bias_f4_6));
}

TEST_CASE("3-D arrays load into tensors") {
  const auto t4 = sa::load_npy<sa::tensor<float, 2, 3, 4>>(fixture("tensor_f4_2x3x4.npy"));
  REQUIRE(t4);
  CHECK(same_bits(t4.value(), fx::tensor_f4_2x3x4));
  // Spot-check the layout through the accessor too: element (1, 2, 3) is the last one.
  CHECK(std::bit_cast<std::uint32_t>(t4.value()(1, 2, 3)) == fx::tensor_f4_2x3x4[23]);
  CHECK(std::bit_cast<std::uint32_t>(t4.value()(1, 0, 0)) == fx::tensor_f4_2x3x4[12]);
  const auto t8 = sa::load_npy<sa::tensor<double, 1, 2, 2>>(fixture("tensor_f8_1x2x2.npy"));
  REQUIRE(t8);
  CHECK(same_bits(t8.value(), fx::tensor_f8_1x2x2));
}

TEST_CASE("signed zero, subnormals, infinities and NaN payloads survive") {
  const auto f4 = sa::load_npy<sa::matrix<float, 1, 8>>(fixture("special_f4_1x8.npy"));
  REQUIRE(f4);
  CHECK(same_bits(f4.value(), fx::special_f4_1x8));
  CHECK(fx::special_f4_1x8[7] == 0x7fc00123u);  // the fixture really has a payload
  const auto f8 = sa::load_npy<sa::matrix<double, 1, 6>>(fixture("special_f8_1x6.npy"));
  REQUIRE(f8);
  CHECK(same_bits(f8.value(), fx::special_f8_1x6));
}

TEST_CASE("a matrix from memory equals the one from the file") {
  const auto bytes = npy_test::read_bytes(fixture("v3_f8_3x3.npy"));
  const auto from_memory = sa::parse_npy<sa::matrix<double, 3, 3>>(npy_test::as_span(bytes), "buffer");
  REQUIRE(from_memory);
  CHECK(from_memory.value() == sa::load_npy<sa::matrix<double, 3, 3>>(fixture("v3_f8_3x3.npy")).value());
}

TEST_CASE("the run-time-shaped reader learns shape and dtype from the file") {
  const auto a = sa::load_npy_array(fixture("tensor_f4_2x3x4.npy"));
  REQUIRE(a);
  CHECK(a.value().dtype == sa::npy_dtype::f4);
  CHECK(a.value().header.shape == std::vector<std::size_t>{2, 3, 4});
  REQUIRE(a.value().f4.size() == 24);
  CHECK(a.value().f8.empty());
  CHECK(std::bit_cast<std::uint32_t>(a.value().f4[5]) == fx::tensor_f4_2x3x4[5]);
  const auto b = sa::load_npy_array(fixture("v3_f8_3x3.npy"));
  REQUIRE(b);
  CHECK(b.value().dtype == sa::npy_dtype::f8);
  CHECK(b.value().header.major_version == 3);
  CHECK(std::bit_cast<std::uint64_t>(b.value().f8[8]) == fx::v3_f8_3x3[8]);
  npy_test::check_error(sa::load_npy_array(fixture("int32_3x2.npy")), sa::npy_errc::dtype_mismatch, {"'<i4'"});
}

TEST_CASE("load_npy(path, m), parse_npy(bytes, m), load_npz(path, entry, m) write m only on success") {
  // A matrix of the caller's: on the heap here, as a large one would be.
  auto m = std::make_unique<sa::matrix<float, 3, 2>>(sa::full<float, 3, 2>(-1.0f));
  const sa::npy_result<void> loaded = sa::load_npy(fixture("v1_f4_3x2.npy"), *m);
  REQUIRE(loaded.has_value());
  loaded.value();  // a no-op on success
  CHECK(same_bits(*m, fx::v1_f4_3x2));

  const auto sevens = sa::full<float, 3, 2>(7.0f);
  auto untouched = sevens;
  npy_test::check_error(sa::load_npy(fixture("v1_f8_2x3.npy"), untouched), sa::npy_errc::dtype_mismatch, {"'<f8'"});
  npy_test::check_error(sa::load_npy(fixture("no_such.npy"), untouched), sa::npy_errc::file_not_found, {"no_such"});
  const auto bytes = npy_test::read_bytes(fixture("v1_f4_3x2.npy"));
  const std::vector<std::byte> cut(bytes.begin(), bytes.end() - 1);
  npy_test::check_error(sa::parse_npy(npy_test::as_span(cut), untouched, "cut.npy"), sa::npy_errc::truncated_data,
                        {"cut.npy", "found 23 of the 24 data bytes"});
  CHECK(untouched == sevens);  // never partly filled

  sa::matrix<float, 3, 2> from_memory;
  REQUIRE(sa::parse_npy(npy_test::as_span(bytes), from_memory).has_value());
  CHECK(same_bits(from_memory, fx::v1_f4_3x2));

  sa::matrix<float, 2, 3> w_query;
  REQUIRE(sa::load_npz(fixture("weights.npz"), "W_query", w_query).has_value());
  CHECK(same_bits(w_query, fx::npz_W_query));
  sa::matrix<float, 2, 3> also;
  const auto archive = npy_test::read_bytes(fixture("weights.npz"));
  REQUIRE(sa::parse_npz(npy_test::as_span(archive), "W_query", also, "w.npz").has_value());
  CHECK(also == w_query);
  auto kept = sa::full<float, 2, 3>(3.0f);
  npy_test::check_error(sa::load_npz(fixture("weights.npz"), "nothing", kept), sa::npy_errc::zip_entry_not_found,
                        {"nothing"});
  CHECK(kept == sa::full<float, 2, 3>(3.0f));
}

// A result can be built straight into static or heap storage, with no copy on the way.
TEST_CASE("a large matrix loads into static storage") {
  static const auto big = sa::load_npy<sa::matrix<float, 3, 2>>(fixture("v1_f4_3x2.npy"));
  REQUIRE(big.has_value());
  const std::unique_ptr<sa::npy_result<sa::matrix<float, 3, 2>>> on_heap{
      new sa::npy_result<sa::matrix<float, 3, 2>>(sa::load_npy<sa::matrix<float, 3, 2>>(fixture("v1_f4_3x2.npy")))};
  CHECK(on_heap->value() == big.value());
}
