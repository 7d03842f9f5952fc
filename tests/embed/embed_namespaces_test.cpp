// SPDX-License-Identifier: BSL-1.0
// The generated header works in any namespace the tool accepts, even one with a component named
// static_attention or std (every name it uses is fully qualified), and for weights too large for
// a constexpr loop: a (300000, 1) matrix, initialised by bit_cast from one flat array.
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>

#include <proj/weights.hpp>      // namespace proj::static_attention
#include <proj_std/weights.hpp>  // namespace proj::std
#include <static_attention/io/npy.hpp>

#include "constexpr_check.hpp"
#include "embed_reference.hpp"
#include "tall_values.hpp"

namespace sa = static_attention;
namespace ref = embed_reference;
namespace w = proj::static_attention;
namespace ws = proj::std;

static_assert(std::is_same_v<decltype(w::w_in), const sa::matrix<float, 4, 3>>);
static_assert(std::is_same_v<decltype(w::special), const sa::matrix<float, 1, 6>>);
static_assert(std::is_same_v<decltype(w::tall300k), const sa::matrix<float, 300000, 1>>);
static_assert(std::is_same_v<decltype(ws::batch), const sa::tensor<double, 2, 2, 3>>);
static_assert(std::is_same_v<decltype(ws::deep), const sa::tensor<float, 257, 1, 1>>);

namespace {

template <class M, class Bits, std::size_t N>
constexpr bool same_bits(const M& m, const Bits (&bits)[N]) {
  if (N != M::size) return false;
  for (std::size_t k = 0; k < N; ++k)
    if (std::bit_cast<Bits>(m.elems[k]) != bits[k]) return false;
  return true;
}

constexpr bool values_are_bit_exact_in_any_namespace() {
  return same_bits(w::w_in, ref::w_in) && same_bits(w::special, ref::special) && same_bits(ws::batch, ref::batch) &&
         same_bits(ws::deep, ref::deep);
}

// Some elements of the 300000 at compile time (all of them would exceed the constexpr limits of
// the check itself); all of them at run time.
constexpr bool tall_samples_are_exact() {
  for (const std::size_t k :
       {std::size_t{0}, std::size_t{1}, std::size_t{4098}, std::size_t{4099}, std::size_t{262144}, std::size_t{299999}})
    if (std::bit_cast<std::uint32_t>(w::tall300k.elems[k]) != std::bit_cast<std::uint32_t>(tall_values::at(k)))
      return false;
  return true;
}

}  // namespace

TEST_CASE("headers in namespaces proj::static_attention and proj::std compile and hold numpy's bits") {
  SA_CHECK_BOTH(values_are_bit_exact_in_any_namespace());
}

TEST_CASE("a (300000, 1) weight is embedded bit-exactly, with no constexpr loop") {
  SA_CHECK_BOTH(tall_samples_are_exact());
  bool all = true;
  for (std::size_t k = 0; k < tall_values::rows; ++k)
    all = all && std::bit_cast<std::uint32_t>(w::tall300k.elems[k]) == std::bit_cast<std::uint32_t>(tall_values::at(k));
  CHECK(all);
  // And it equals what load_npy reads from the same file, into static storage.
  static const auto loaded = sa::load_npy<sa::matrix<float, 300000, 1>>(SA_EMBED_TALL_NPY);
  REQUIRE(loaded.has_value());
  CHECK(loaded.value() == w::tall300k);
}
