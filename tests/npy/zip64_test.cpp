// SPDX-License-Identifier: BSL-1.0
// Run-time truth: .npz archives with ZIP64 records, as np.savez writes for archives over 2 GiB
// (GPT-2 large and XL), load bit-exactly; the fixture is np.savez's own output with zipfile's
// ZIP64 limits lowered (tests/reference/gen_zip64_fixtures.py), so a few hundred bytes hold a
// ZIP64 end record, its locator, ZIP64 local headers and ZIP64 central extra fields. Damaged
// ZIP64 records are error values.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fixture_values.hpp"
#include "npy_test_support.hpp"

namespace sa = static_attention;
namespace fx = npy_fixtures;
using npy_test::as_span;
using npy_test::check_error;
using npy_test::fixture;
using npy_test::same_bits;
using errc = sa::npy_errc;
using m23 = sa::matrix<float, 2, 3>;

namespace {
std::uint64_t get(const std::vector<std::byte>& b, std::size_t at, int width) {
  std::uint64_t v = 0;
  for (int i = width; i-- > 0;) v = (v << 8) | std::to_integer<std::uint64_t>(b[at + static_cast<std::size_t>(i)]);
  return v;
}
void put(std::vector<std::byte>& b, std::size_t at, int width, std::uint64_t v) {
  for (int i = 0; i < width; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::byte>((v >> (8 * i)) & 0xffu);
}

struct zip64_archive {
  std::vector<std::byte> bytes = npy_test::read_bytes(fixture("zip64_end.npz"));
  std::size_t eocd() const { return bytes.size() - 22; }
  std::size_t locator() const { return eocd() - 20; }
  std::size_t end64() const { return static_cast<std::size_t>(get(bytes, locator() + 8, 8)); }
  // From memory and from a file: the same value or the same code.
  sa::npy_result<m23> load(std::string_view entry = "W_query") const {
    auto from_memory = sa::parse_npz<m23>(as_span(bytes), entry, "z.npz");
    const npy_test::temp_file file("zip64", bytes);
    const auto from_file = sa::load_npz<m23>(file.str(), entry);
    CHECK(from_file.has_value() == from_memory.has_value());
    if (!from_file && !from_memory) CHECK(from_file.error().code == from_memory.error().code);
    return from_memory;
  }
};
}  // namespace

TEST_CASE("np.savez's ZIP64 archive: end record, locator, local and central extra fields") {
  const zip64_archive a;
  REQUIRE(get(a.bytes, a.locator(), 4) == 0x07064b50u);
  REQUIRE(get(a.bytes, a.end64(), 4) == 0x06064b50u);
  const auto query = a.load();
  REQUIRE_MESSAGE(query, query.error().message);
  CHECK(same_bits(query.value(), fx::npz_W_query));
  const auto f8 = sa::load_npz<sa::matrix<double, 3, 2>>(fixture("zip64_end.npz"), "W_f8");
  REQUIRE(f8);
  CHECK(same_bits(f8.value(), fx::npz_W_f8));
  const auto bias = sa::load_npz<sa::matrix<float, 1, 3>>(fixture("zip64_end.npz"), "bias");
  REQUIRE(bias);
  CHECK(same_bits(bias.value(), fx::npz_bias));
}

TEST_CASE("an end record that defers every field to the ZIP64 end record, as past 4 GiB") {
  zip64_archive a;
  put(a.bytes, a.eocd() + 8, 2, 0xffff);
  put(a.bytes, a.eocd() + 10, 2, 0xffff);
  put(a.bytes, a.eocd() + 12, 4, 0xffffffffu);
  put(a.bytes, a.eocd() + 16, 4, 0xffffffffu);
  const auto key = a.load("W_key");
  REQUIRE_MESSAGE(key, key.error().message);
  CHECK(same_bits(key.value(), fx::npz_W_key));
}

TEST_CASE("damaged ZIP64 records are refused") {
  zip64_archive sig;  // the locator points at something else
  put(sig.bytes, sig.end64(), 4, 0x12345678);
  check_error(sig.load(), errc::zip_malformed, {"z.npz", "no ZIP64 end record"});
  zip64_archive far;  // the locator points past itself
  put(far.bytes, far.locator() + 8, 8, far.bytes.size());
  check_error(far.load(), errc::zip_malformed, {"ZIP64 end record's offset"});
  zip64_archive huge;  // ... or at 2^64 - 1
  put(huge.bytes, huge.locator() + 8, 8, ~std::uint64_t{0});
  check_error(huge.load(), errc::zip_malformed, {"ZIP64"});
  zip64_archive disagree;  // the classic record's count is not all ones and differs
  put(disagree.bytes, disagree.eocd() + 8, 2, 3);
  put(disagree.bytes, disagree.eocd() + 10, 2, 3);
  check_error(disagree.load(), errc::zip_malformed, {"disagree"});
  zip64_archive split;  // a second disk
  put(split.bytes, split.locator() + 16, 4, 2);
  check_error(split.load(), errc::zip_unsupported, {"multi-disk"});
  zip64_archive cd_past;  // the ZIP64 central directory size runs into the ZIP64 end record
  put(cd_past.bytes, cd_past.eocd() + 12, 4, 0xffffffffu);
  put(cd_past.bytes, cd_past.end64() + 40, 8, get(cd_past.bytes, cd_past.end64() + 40, 8) + 1);
  check_error(cd_past.load(), errc::zip_truncated, {"central directory"});
  zip64_archive count;  // 2^64 - 1 entries in a central directory of four records
  put(count.bytes, count.eocd() + 8, 2, 0xffff);
  put(count.bytes, count.eocd() + 10, 2, 0xffff);
  put(count.bytes, count.end64() + 24, 8, ~std::uint64_t{0});
  put(count.bytes, count.end64() + 32, 8, ~std::uint64_t{0});
  check_error(count.load(), errc::zip_malformed, {"central directory record 4 of 18446744073709551615"});
}
