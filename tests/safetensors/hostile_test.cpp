// SPDX-License-Identifier: BSL-1.0
// Run-time truth: every hostile safetensors file is an error value whose code says what is wrong
// and whose message names the key (when one is at fault) and the file; the model keeps every bit,
// and the reader that takes a path agrees with the one that takes memory (st_test::load_both).
// The files are crafted here: a header text of our own, or a torch-written fixture with its header
// edited (tests/reference/gen_safetensors_fixtures.py).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <static_attention/io/safetensors.hpp>

#include "safetensors_test_support.hpp"

namespace sa = static_attention;
using sa::errc;
using st_test::check_refused;
using st_test::edited;
using st_test::file_of;

namespace {
// One F32 tensor "a" of 2 elements and "b" of 3 (20 data bytes), the smallest layout to damage.
constexpr std::string_view two = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                 R"("b":{"dtype":"F32","shape":[3],"data_offsets":[8,20]}})";
}  // namespace

TEST_CASE("the header length: too short a file, too long a header, past the end of the file") {
  check_refused({}, errc::truncated_header, "", "fewer than the 8");
  check_refused(std::vector<std::byte>(5), errc::truncated_header, "", "found 5 bytes");
  check_refused(file_of(two, std::vector<std::byte>(20), ~std::uint64_t{0} - 1), errc::header_too_large, "",
                "limit is 100000000");
  check_refused(file_of(two, std::vector<std::byte>(20), 100'000'001), errc::header_too_large, "", "100000001");
  check_refused(file_of(two, std::vector<std::byte>(20), two.size() + 21), errc::truncated_header, "",
                "bytes after it");
}

TEST_CASE("the header's JSON: not an object, broken, trailing text, bad strings and numbers") {
  check_refused(file_of(R"(["a"])", 0), errc::malformed_header, "", "does not begin with '{'");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})", 8), errc::malformed_header, "",
                "expected ',' or '}'");
  check_refused(file_of(std::string{two} + " x", 20), errc::malformed_header, "", "after the header's closing");
  check_refused(file_of(R"({"a\x":{}})", 0), errc::malformed_header, "", "unknown escape");
  check_refused(file_of(R"({"\ud800":{}})", 0), errc::malformed_header, "", "surrogate");
  check_refused(file_of("{\"\xff\":{}}", 0), errc::header_encoding, "", "not UTF-8");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[02],"data_offsets":[0,8]}})", 8), errc::malformed_header, "",
                "leading zero");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", 8), errc::malformed_header, "",
                "not an integer");
  check_refused(file_of(R"({"__metadata__":{"k":1}})", 0), errc::malformed_header, "", "string value");
}

TEST_CASE("a tensor's fields: repeated keys, unknown fields, negative and huge numbers") {
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                        R"("a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                        16),
                errc::header_keys, "a", "twice");
  check_refused(file_of(R"({"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8),
                errc::header_keys, "a", "field 'dtype' twice");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}})", 8), errc::header_keys, "a",
                "unknown field 'x'");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2]}})", 8), errc::header_keys, "a", "lacks 'data_offsets'");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8), errc::header_keys, "a",
                "negative");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551616]}})", 8),
                errc::header_keys, "a", "past 2^64");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8,9]}})", 8), errc::header_keys, "a",
                "[begin, end]");
  check_refused(file_of(R"({"a":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", 8), errc::dtype_mismatch, "a",
                "unknown dtype 'F33'");
}

TEST_CASE("the data: shape against offsets, overflow, gaps, overlaps, past the end, left over") {
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8), errc::malformed_header, "a",
                "not the 12 bytes");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,8]}})", 8),
                errc::malformed_header, "a", "over 2^64");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8), errc::malformed_header, "a",
                "end before they begin");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                        R"("b":{"dtype":"F32","shape":[3],"data_offsets":[12,24]}})",
                        24),
                errc::malformed_header, "b", "a gap");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                        R"("b":{"dtype":"F32","shape":[3],"data_offsets":[4,16]}})",
                        16),
                errc::malformed_header, "b", "an overlap");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12), errc::malformed_header, "a",
                "a gap");  // the data do not start at 0
  check_refused(file_of(two, 19), errc::truncated_data, "b", "ends at data offset 20, past the 19 data bytes");
  check_refused(file_of(two, 21), errc::trailing_bytes, "", "bytes no tensor owns");
}

TEST_CASE("a header of the right form for the wrong model: names, dtypes, shapes, masks") {
  check_refused(file_of(two, 20), errc::missing_tensor, "tok_emb.weight", "found neither");
  check_refused(edited("book_f32.safetensors", {{"\"final_norm.shift\"", "\"final_norm.shifu\""}}),
                errc::missing_tensor, "final_norm.shift", "found no such tensor");
  check_refused(edited("book_f32.safetensors",
                       {{"\"pos_emb.weight\":{\"dtype\":\"F32\"", "\"pos_emb.weight\":{\"dtype\":\"I32\""}}),
                errc::dtype_mismatch, "pos_emb.weight", "found dtype I32");
  check_refused<sa::gpt_config{64, 4, 16, 2, 2, false}>(st_test::read_bytes(st_test::fixture("book_f32.safetensors")),
                                                        errc::shape_mismatch, "pos_emb.weight", "found shape [8, 16]");
  check_refused<sa::gpt_config{64, 8, 16, 2, 3, false}>(st_test::read_bytes(st_test::fixture("book_f32.safetensors")),
                                                        errc::missing_tensor, "trf_blocks.2.att.W_query.weight", "");
  check_refused(st_test::read_bytes(st_test::fixture("hf_f32.safetensors")), errc::shape_mismatch,
                "transformer.wte.weight", "found shape [64, 18]");
  // A mask with a 0 where the causal mask has 1: row 0, column 5 of trf_blocks.1.att.mask (F32).
  auto parts = st_test::split(st_test::read_bytes(st_test::fixture("book_f32.safetensors")));
  const std::string key = "\"trf_blocks.1.att.mask\":{\"dtype\":\"F32\",\"shape\":[8,8],\"data_offsets\":[";
  const std::size_t at = parts.header.find(key);
  REQUIRE(at != std::string::npos);
  const std::size_t begin = std::stoul(parts.header.substr(at + key.size()));
  for (std::size_t b = 0; b < 4; ++b) parts.data[begin + 5 * 4 + b] = std::byte{0};
  check_refused(file_of(parts.header, parts.data), errc::mask_mismatch, "trf_blocks.1.att.mask", "found 0 at (0, 5)");
}

TEST_CASE("files that are not there, or not regular files") {
  auto model = st_test::torch_model<float, st_test::tiny>(7);
  const auto before = st_test::bytes_of(*model);
  const auto missing = sa::load_safetensors(*model, st_test::fixture("no_such.safetensors"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == errc::file_not_found);
  CHECK(st_test::contains(missing.error().message, "no_such.safetensors"));
  const auto directory = sa::load_safetensors(*model, SA_SAFETENSORS_FIXTURES_DIR);
  REQUIRE_FALSE(directory);
  CHECK(directory.error().code == errc::file_unreadable);
  CHECK(st_test::bytes_of(*model) == before);
}
