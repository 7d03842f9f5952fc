// SPDX-License-Identifier: BSL-1.0
// Run-time truth: arrays of an .npz archive written by np.savez load bit-exactly by name, and a
// damaged or unsupported archive is an error value naming the archive, the entry and the finding.
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
// Field access by the offsets of PKWARE's APPNOTE, for damaging one field at a time.
std::uint32_t get(const std::vector<std::byte>& b, std::size_t at, int width) {
  std::uint32_t v = 0;
  for (int i = width; i-- > 0;) v = (v << 8) | std::to_integer<std::uint32_t>(b[at + static_cast<std::size_t>(i)]);
  return v;
}
void put(std::vector<std::byte>& b, std::size_t at, int width, std::uint32_t v) {
  for (int i = 0; i < width; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::byte>((v >> (8 * i)) & 0xffu);
}

struct archive {
  std::vector<std::byte> bytes = npy_test::read_bytes(fixture("weights.npz"));
  std::size_t eocd() const { return bytes.size() - 22; }
  std::size_t central() const { return get(bytes, eocd() + 16, 4); }  // first record: W_query.npy
  // The archive parsed in memory; load_npz reads the same bytes from a file piece by piece, and
  // must agree: the same value, or the same error with the file's name for "w.npz".
  auto load(std::string_view entry = "W_query") const {
    auto from_memory = sa::parse_npz<m23>(as_span(bytes), entry, "w.npz");
    const npy_test::temp_file file("archive", bytes);
    const auto from_file = sa::load_npz<m23>(file.str(), entry);
    CHECK(from_file.has_value() == from_memory.has_value());
    if (from_file && from_memory) CHECK(from_file.value() == from_memory.value());
    if (!from_file && !from_memory) {
      CHECK(from_file.error().code == from_memory.error().code);
      std::string message{from_file.error().message.view()};
      for (std::size_t at = message.find(file.str()); at != std::string::npos; at = message.find(file.str()))
        message.replace(at, file.str().size(), "w.npz");
      CHECK(message == from_memory.error().message);
    }
    return from_memory;
  }
};
}  // namespace

TEST_CASE("every array of an np.savez archive loads by name, bit-exactly") {
  const auto path = fixture("weights.npz");
  const auto query = sa::load_npz<m23>(path, "W_query");
  REQUIRE(query);
  CHECK(same_bits(query.value(), fx::npz_W_query));
  const auto key = sa::load_npz<m23>(path, "W_key.npy");  // np.load accepts the full entry name too
  REQUIRE(key);
  CHECK(same_bits(key.value(), fx::npz_W_key));
  const auto bias = sa::load_npz<sa::matrix<float, 1, 3>>(path, "bias");
  REQUIRE(bias);
  CHECK(same_bits(bias.value(), fx::npz_bias));
  const auto f8 = sa::load_npz<sa::matrix<double, 3, 2>>(path, "W_f8");
  REQUIRE(f8);
  CHECK(same_bits(f8.value(), fx::npz_W_f8));
  CHECK(archive{}.load().value() == query.value());
}

TEST_CASE("sizes and offset in a ZIP64 extra field, as zipfile writes past 4 GiB") {
  const auto path = fixture("zip64_central.npz");
  const auto query = sa::load_npz<m23>(path, "W_query");
  REQUIRE(query);
  CHECK(same_bits(query.value(), fx::npz_W_query));
  // Damage the extra field: the central record is after the local header (61 bytes) and data (152).
  auto bytes = npy_test::read_bytes(path);
  const std::size_t central = 61 + 152;
  REQUIRE(get(bytes, central, 4) == 0x02014b50u);
  auto short_field = bytes;  // the ZIP64 field holds sizes but not the offset
  put(short_field, central + 46 + 11 + 2, 2, 16);
  check_error(sa::parse_npz<m23>(as_span(short_field), "W_query", "z.npz"), errc::zip_malformed,
              {"z.npz", "ZIP64 extra field of entry 'W_query.npy'"});
  auto no_room = bytes;  // the field claims more bytes than the record's extra area has
  put(no_room, central + 30, 2, 16);
  check_error(sa::parse_npz<m23>(as_span(no_room), "W_query", "z.npz"), errc::zip_malformed, {"ZIP64 extra field"});
  auto wrong_offset = bytes;  // the 64-bit offset points past the end
  put(wrong_offset, central + 46 + 11 + 4 + 16, 4, 0x10000);
  check_error(sa::parse_npz<m23>(as_span(wrong_offset), "W_query", "z.npz"), errc::zip_truncated, {"local header"});
}

TEST_CASE("errors inside an entry name the archive and the entry") {
  check_error(sa::load_npz<sa::matrix<float, 3, 2>>(fixture("weights.npz"), "W_query"), errc::shape_mismatch,
              {"weights.npz/W_query.npy", "matrix<float, 3, 2>", "found shape (2, 3)"});
  check_error(sa::load_npz<sa::matrix<float, 3, 2>>(fixture("weights.npz"), "W_f8"), errc::dtype_mismatch,
              {"weights.npz/W_f8.npy", "found dtype '<f8'"});
}

TEST_CASE("compressed archives (np.savez_compressed) are refused with advice") {
  check_error(sa::load_npz<m23>(fixture("compressed.npz"), "W_query"), errc::zip_compressed,
              {"compressed.npz", "compressed .npz entries are not supported; use np.savez", "'W_query.npy'",
               "method 8, deflate"});
}

TEST_CASE("missing entries list what the archive holds") {
  check_error(
      sa::load_npz<m23>(fixture("weights.npz"), "W_value"), errc::zip_entry_not_found,
      {"weights.npz", "entry 'W_value' as matrix<float, 2, 3>", "'W_query.npy', 'W_key.npy', 'bias.npy', 'W_f8.npy'"});
  check_error(sa::load_npz<m23>(fixture("weights.npz"), "W_quer"), errc::zip_entry_not_found, {});
  check_error(sa::load_npz<m23>(fixture("weights.npz"), "W_query.npy.npy"), errc::zip_entry_not_found, {});
  // The smallest valid ZIP: an end record and nothing else.
  std::vector<std::byte> empty(22);
  put(empty, 0, 4, 0x06054b50);
  check_error(sa::parse_npz<m23>(as_span(empty), "W_query"), errc::zip_entry_not_found, {"no entries"});
}

TEST_CASE("not an archive, and missing files") {
  check_error(sa::load_npz<m23>(fixture("v1_f4_3x2.npy"), "W_query"), errc::zip_malformed,
              {"v1_f4_3x2.npy", "a .npy file, not an .npz archive"});
  const std::vector<std::byte> text{std::byte{'h'}, std::byte{'i'}};
  check_error(sa::parse_npz<m23>(as_span(text), "W_query"), errc::zip_malformed, {"not a ZIP archive"});
  check_error(sa::parse_npz<m23>({}, "W_query"), errc::zip_malformed, {"found bytes nothing"});
  check_error(sa::load_npz<m23>(fixture("nothing.npz"), "W_query"), errc::file_not_found, {"nothing.npz"});
}

TEST_CASE("truncated archives") {
  const archive a;
  for (const std::size_t cut : {std::size_t{1}, std::size_t{22}, std::size_t{300}, a.bytes.size() - 4}) {
    INFO(cut);
    const std::vector<std::byte> head(a.bytes.begin(), a.bytes.end() - static_cast<std::ptrdiff_t>(cut));
    check_error(sa::parse_npz<m23>(as_span(head), "W_query", "w.npz"), errc::zip_truncated,
                {"w.npz", "no end-of-central-directory record"});
  }
  archive far;  // central directory said to start past the end record
  put(far.bytes, far.eocd() + 16, 4, static_cast<std::uint32_t>(far.eocd()));
  check_error(far.load(), errc::zip_truncated, {"central directory"});
  archive local;  // the entry's local header said to lie past the end
  put(local.bytes, local.central() + 42, 4, 0x7fffffff);
  check_error(local.load(), errc::zip_truncated, {"local header of entry 'W_query.npy'"});
  archive data;  // the entry's data said to extend past the end
  put(data.bytes, data.central() + 20, 4, 0x7ffffff0);
  put(data.bytes, data.central() + 24, 4, 0x7ffffff0);
  check_error(data.load(), errc::zip_truncated, {"data bytes of entry 'W_query.npy'"});
}

TEST_CASE("damaged archives") {
  archive crc;
  crc.bytes[100] ^= std::byte{1};  // a data byte of W_query
  check_error(crc.load(), errc::zip_crc_mismatch, {"w.npz", "CRC-32", "'W_query.npy'"});
  CHECK(crc.load("W_key").has_value());  // the other entries are intact
  archive sig;
  put(sig.bytes, sig.central(), 4, 0x12345678);
  check_error(sig.load(), errc::zip_malformed, {"central directory record 0 of 4"});
  archive local_sig;
  put(local_sig.bytes, 0, 4, 0x12345678);
  check_error(local_sig.load(), errc::zip_malformed, {"no local header signature"});
  archive sizes;  // stored, yet sizes differ
  put(sizes.bytes, sizes.central() + 20, 4, 10);
  check_error(sizes.load(), errc::zip_malformed, {"sizes differ"});
  archive name;  // the name length runs past the central directory
  put(name.bytes, name.central() + 28, 2, 0xffff);
  check_error(name.load(), errc::zip_malformed, {"extends past the central directory"});
  archive twice;  // the second record renamed to the first one's name
  const std::size_t second = twice.central() + 46 + 11;
  const std::string w_query = "W_query.npy";
  put(twice.bytes, second + 28, 2, 11);
  for (std::size_t i = 0; i < 11; ++i) twice.bytes[second + 46 + i] = static_cast<std::byte>(w_query[i]);
  check_error(twice.load(), errc::zip_malformed, {});
}

TEST_CASE("unsupported ZIP features: encryption, other methods, split archives") {
  archive encrypted;
  put(encrypted.bytes, encrypted.central() + 8, 2, 1);
  check_error(encrypted.load(), errc::zip_unsupported, {"encrypted"});
  archive bzip2;
  put(bzip2.bytes, bzip2.central() + 10, 2, 12);
  check_error(bzip2.load(), errc::zip_compressed, {"use np.savez", "method 12)"});
  archive zip64;  // an offset deferring to a ZIP64 end record that is not there
  put(zip64.bytes, zip64.eocd() + 16, 4, 0xffffffffu);
  check_error(zip64.load(), errc::zip_malformed, {"ZIP64 end record"});
  archive split;
  put(split.bytes, split.eocd() + 4, 2, 1);
  check_error(split.load(), errc::zip_unsupported, {"multi-disk"});
}
