// SPDX-License-Identifier: BSL-1.0
// Run-time truth: every way a .npy input can be wrong is an error value with a code and a message
// naming the input, the expectation and the finding; no error leaves a value behind.
#include <cstddef>
#include <string>
#include <vector>

#include "npy_test_support.hpp"

namespace sa = static_attention;
using npy_test::as_span;
using npy_test::check_error;
using npy_test::fixture;
using npy_test::make_npy;
using npy_test::numpy_header;
using errc = sa::npy_errc;
using m32 = sa::matrix<float, 3, 2>;

namespace {
// The expectation every message about m32 states.
constexpr auto m32_expected = "matrix<float, 3, 2> (dtype '<f4', shape (3, 2))";

auto parse(const std::vector<std::byte>& bytes) { return sa::parse_npy<m32>(as_span(bytes), "crafted.npy"); }
}  // namespace

TEST_CASE("crafted headers in numpy's own form parse, in every version") {
  for (const int major : {1, 2, 3}) {
    const auto r = parse(make_npy(major, numpy_header(), 24));
    REQUIRE(r);
    CHECK(r.value()(2, 1) == sa::parse_npy<m32>(as_span(make_npy(1, numpy_header(), 24))).value()(2, 1));
  }
}

TEST_CASE("any Python literal spelling of the dict parses, not only numpy's") {
  for (const char* header : {"{'shape': (3, 2), 'fortran_order': False, 'descr': '<f4'}",  // other order
                             "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3, 2,)}\n",
                             "\t{ 'descr' : '<f4' ,\n'fortran_order':False,'shape':(3,2) }  \r\n"}) {
    INFO(header);
    CHECK(parse(make_npy(1, header, 24)).has_value());
  }
}

TEST_CASE("dtype mismatch: no silent conversion") {
  check_error(sa::load_npy<m32>(fixture("v1_f8_2x3.npy")), errc::dtype_mismatch, {});
  const auto f8_into_float = sa::load_npy<sa::matrix<float, 2, 3>>(fixture("v1_f8_2x3.npy"));
  check_error(f8_into_float, errc::dtype_mismatch,
              {"v1_f8_2x3.npy", "matrix<float, 2, 3> (dtype '<f4', shape (2, 3))", "found dtype '<f8' (float64)"});
  check_error(sa::load_npy<sa::matrix<double, 3, 2>>(fixture("v1_f4_3x2.npy")), errc::dtype_mismatch,
              {"v1_f4_3x2.npy", "matrix<double, 3, 2> (dtype '<f8'", "found dtype '<f4' (float32)"});
  check_error(sa::load_npy<m32>(fixture("big_endian_f4_3x2.npy")), errc::dtype_mismatch,
              {"found dtype '>f4' (big-endian)"});
  check_error(sa::load_npy<m32>(fixture("int32_3x2.npy")), errc::dtype_mismatch, {"found dtype '<i4'"});
  check_error(parse(make_npy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3, 2)}", 24)),
              errc::dtype_mismatch, {"structured dtype"});
}

TEST_CASE("fortran_order True is refused") {
  check_error(sa::load_npy<sa::matrix<double, 2, 3>>(fixture("fortran_f8_2x3.npy")), errc::fortran_order,
              {"fortran_f8_2x3.npy", "matrix<double, 2, 3>", "fortran_order True"});
}

TEST_CASE("shape mismatch names both shapes") {
  check_error(sa::load_npy<sa::matrix<float, 2, 3>>(fixture("v1_f4_3x2.npy")), errc::shape_mismatch,
              {"v1_f4_3x2.npy", "shape (2, 3)", "found shape (3, 2)"});
  // A 1-D array is a row: it loads into 1 x C (tested with fixtures) but not into C x 1 or R x C.
  check_error(sa::load_npy<sa::matrix<float, 6, 1>>(fixture("bias_f4_6.npy")), errc::shape_mismatch,
              {"found shape (6,)"});
  check_error(sa::load_npy<sa::matrix<float, 2, 3>>(fixture("bias_f4_6.npy")), errc::shape_mismatch, {});
  check_error(sa::load_npy<sa::matrix<float, 1, 5>>(fixture("bias_f4_6.npy")), errc::shape_mismatch,
              {"shape (1, 5) or (5,)", "found shape (6,)"});
  // Rank must match too: no squeezing of a leading 1, no flattening.
  check_error(sa::load_npy<sa::tensor<float, 1, 3, 2>>(fixture("v1_f4_3x2.npy")), errc::shape_mismatch,
              {"tensor<float, 1, 3, 2> (dtype '<f4', shape (1, 3, 2))", "found shape (3, 2)"});
  check_error(sa::load_npy<sa::matrix<float, 6, 4>>(fixture("tensor_f4_2x3x4.npy")), errc::shape_mismatch,
              {"found shape (2, 3, 4)"});
  check_error(parse(make_npy(1, numpy_header("<f4", "()"), 4)), errc::shape_mismatch, {"found shape ()"});
  check_error(parse(make_npy(1, numpy_header("<f4", "(3, 0)"), 0)), errc::shape_mismatch, {"found shape (3, 0)"});
}

TEST_CASE("bad magic, and inputs too short for the preamble") {
  auto bytes = make_npy(1, numpy_header(), 24);
  bytes[5] = std::byte{'X'};
  check_error(parse(bytes), errc::bad_magic,
              {"crafted.npy", m32_expected, "0x93 0x4e 0x55 0x4d 0x50 0x58", "not a .npy file"});
  check_error(sa::load_npy<m32>(fixture("weights.npz")), errc::bad_magic, {"0x50 0x4b 0x03 0x04"});
  check_error(parse({}), errc::truncated_header, {"ends after 0 bytes"});
  const auto full = make_npy(1, numpy_header(), 24);
  for (const std::size_t keep : {1u, 6u, 7u, 9u}) {
    INFO(keep);
    check_error(parse({full.begin(), full.begin() + static_cast<std::ptrdiff_t>(keep)}), errc::truncated_header,
                {"ends after " + std::to_string(keep) + " bytes"});
  }
}

TEST_CASE("versions other than 1.0, 2.0 and 3.0 are refused") {
  check_error(parse(make_npy(4, numpy_header(), 24)), errc::unsupported_version, {"found format version 4.0"});
  check_error(parse(make_npy(1, numpy_header(), 24, -1, 1)), errc::unsupported_version, {"1.1"});
  check_error(parse(make_npy(0, numpy_header(), 24)), errc::unsupported_version, {"0.0"});
}

TEST_CASE("truncated header") {
  const auto full = make_npy(2, numpy_header(), 24);
  check_error(parse({full.begin(), full.begin() + 40}), errc::truncated_header, {"found 28 of the header's 118 bytes"});
  check_error(parse(make_npy(1, "{'descr': '<f4'", 0, 200)), errc::truncated_header, {"of the header's 200 bytes"});
  check_error(parse(make_npy(1, "", 0)), errc::malformed_header, {"does not start with '{'"});
}

TEST_CASE("header too large: numpy's limit of 10000 bytes") {
  check_error(parse(make_npy(2, numpy_header(), 24, 10001)), errc::header_too_large,
              {"header of 10001 bytes", "limit is 10000"});
  check_error(parse(make_npy(1, numpy_header(), 24, 65535)), errc::header_too_large, {});
  check_error(parse(make_npy(3, numpy_header(), 24, 0xffffffffLL)), errc::header_too_large, {"4294967295"});
  // Exactly at the limit is fine.
  std::string big = numpy_header();
  big.insert(big.size() - 1, 10000 - big.size(), ' ');
  CHECK(parse(make_npy(2, big, 24)).has_value());
}

TEST_CASE("header encoding: ASCII for supported headers, valid UTF-8 in version 3.0") {
  std::string latin1 = numpy_header();
  latin1[latin1.size() - 3] = '\xe9';  // 'e acute' in latin1, in the padding
  check_error(parse(make_npy(1, latin1, 24)), errc::header_encoding, {"byte 0xe9", "not ASCII", "latin1"});
  check_error(parse(make_npy(2, latin1, 24)), errc::header_encoding, {"version 2.0 headers are latin1"});
  check_error(parse(make_npy(3, latin1, 24)), errc::header_encoding, {"not valid UTF-8"});
  std::string utf8 = numpy_header();
  utf8.replace(utf8.size() - 3, 2, "\xc3\xa9");
  check_error(parse(make_npy(3, utf8, 24)), errc::header_encoding, {"non-ASCII character"});
  std::string nul = numpy_header();
  nul[nul.size() - 2] = '\0';
  check_error(parse(make_npy(1, nul, 24)), errc::header_encoding, {"control character 0x00"});
}

TEST_CASE("malformed dict syntax") {
  const char* cases[][2] = {
      {"'descr': '<f4', 'fortran_order': False, 'shape': (3, 2)}", "does not start with '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2)", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2)} x", "after the closing '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3)}", "not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, -2)}", "non-negative integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (03, 2)}", "leading zero"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3 2)}", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,, 2)}", "non-negative integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [3, 2]}", "expected a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999, 2)}", "does not fit"},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': (3, 2)}", "True or False"},
      {"{'descr': <f4, 'fortran_order': False, 'shape': (3, 2)}", "quoted string"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (3, 2)}", "expected ',' or '}' after the value of 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), 'x}", "unterminated string"},
      {"{'descr' '<f4', 'fortran_order': False, 'shape': (3, 2)}", "expected ':'"},
      {"{'de\\x73cr': '<f4', 'fortran_order': False, 'shape': (3, 2)}", "escape sequences"},
      {"{descr: '<f4', 'fortran_order': False, 'shape': (3, 2)}", "quoted string for a key"},
      {"{'descr': '<f4',, 'fortran_order': False, 'shape': (3, 2)}", "quoted string for a key"},
  };
  for (const auto& [header, reason] : cases) {
    INFO(std::string_view{header});
    check_error(parse(make_npy(1, header, 24)), errc::malformed_header, {"crafted.npy", m32_expected, reason});
  }
}

TEST_CASE("missing, repeated and unknown keys") {
  check_error(parse(make_npy(1, "{'descr': '<f4', 'fortran_order': False}", 24)), errc::header_keys,
              {"found no key 'shape'"});
  check_error(parse(make_npy(1, "{}", 24)), errc::header_keys, {"found no key 'descr'"});
  check_error(parse(make_npy(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3, 2)}", 24)),
              errc::header_keys, {"found key 'descr' twice"});
  check_error(parse(make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), 'x': 1}", 24)),
              errc::header_keys, {"unknown key 'x'"});
}

TEST_CASE("the data must be exactly as long as shape and dtype say") {
  check_error(parse(make_npy(1, numpy_header(), 23)), errc::truncated_data,
              {m32_expected, "found 23 of the 24 data bytes"});
  check_error(parse(make_npy(1, numpy_header(), 0)), errc::truncated_data, {"found 0 of the 24"});
  check_error(parse(make_npy(1, numpy_header(), 25)), errc::trailing_bytes, {"found 1 bytes after the 24 data bytes"});
  // Through a file, a long tail is reported without reading it all.
  const npy_test::temp_file long_file("trailing", make_npy(1, numpy_header(), 24 + 100000));
  check_error(sa::load_npy<m32>(long_file.str()), errc::trailing_bytes,
              {long_file.str(), "found at least", "after the 24 data bytes"});
  // A wrong shape in a long file is still reported as the shape, not the length.
  check_error(sa::load_npy<sa::matrix<float, 1, 1>>(long_file.str()), errc::shape_mismatch, {"found shape (3, 2)"});
  const npy_test::temp_file exact("exact", make_npy(3, numpy_header(), 24));
  CHECK(sa::load_npy<m32>(exact.str()).has_value());
}

TEST_CASE("missing and unreadable files") {
  check_error(sa::load_npy<m32>(fixture("no_such_file.npy")), errc::file_not_found,
              {"no_such_file.npy", m32_expected, "no such file"});
  // A directory opens on POSIX but cannot be read.
  check_error(sa::load_npy<m32>(SA_NPY_FIXTURES_DIR), errc::file_unreadable, {SA_NPY_FIXTURES_DIR, "could not"});
}

TEST_CASE("error codes have names") {
  CHECK(sa::to_string_view(errc::shape_mismatch) == "shape_mismatch");
  CHECK(sa::to_string_view(errc::zip_crc_mismatch) == "zip_crc_mismatch");
  CHECK(sa::to_string_view(static_cast<errc>(1000)) == "unknown");
}

TEST_CASE("dtype messages name the dtype to convert to, for both readers") {
  // The run-time-shaped reader takes either width: a big-endian array gets the little-endian
  // dtype of its own width (it used to say `save a.astype('')`).
  check_error(sa::parse_npy_array(as_span(make_npy(1, numpy_header(">f4"), 24)), "be.npy"), errc::dtype_mismatch,
              {"found dtype '>f4' (big-endian); save a.astype('<f4')"});
  check_error(sa::parse_npy_array(as_span(make_npy(1, numpy_header(">f8"), 48)), "be.npy"), errc::dtype_mismatch,
              {"found dtype '>f8' (big-endian); save a.astype('<f8')"});
  check_error(sa::load_npy_array(fixture("big_endian_f4_3x2.npy")), errc::dtype_mismatch, {"save a.astype('<f4')"});
  check_error(sa::load_npy_array(fixture("int32_3x2.npy")), errc::dtype_mismatch,
              {"found dtype '<i4'; save a.astype(np.float32) or a.astype(np.float64)"});
  // The typed reader names the dtype of its type.
  check_error(parse(make_npy(1, numpy_header("<i4"), 24)), errc::dtype_mismatch,
              {"found dtype '<i4'; save a.astype(np.float32)"});
  check_error(sa::parse_npy<sa::matrix<double, 3, 2>>(as_span(make_npy(1, numpy_header(">f4"), 24))),
              errc::dtype_mismatch, {"(big-endian); save a.astype('<f8')"});
  for (const char* descr : {">f4", ">f8", "<i4", "|b1", "<f2", "<c8"}) {
    const auto r = sa::parse_npy_array(as_span(make_npy(1, numpy_header(descr), 0)));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message.find("astype('')") == std::string::npos);
  }
}

TEST_CASE("zero-element shapes hold no elements, however large the other dimensions") {
  // (2**61, 2, 0): no element, so no data; it used to be called too large for memory.
  const auto empty = sa::parse_npy_array(as_span(make_npy(1, numpy_header("<f4", "(2305843009213693952, 2, 0)"), 0)));
  REQUIRE(empty.has_value());
  CHECK(empty.value().header.shape == std::vector<std::size_t>{2305843009213693952u, 2, 0});
  CHECK(empty.value().f4.empty());
  CHECK(empty.value().f8.empty());
  const auto none = sa::parse_npy_array(as_span(make_npy(3, numpy_header("<f8", "(0,)"), 0)));
  REQUIRE(none.has_value());
  CHECK(none.value().dtype == sa::npy_dtype::f8);
  check_error(sa::parse_npy_array(as_span(make_npy(1, numpy_header("<f8", "(0, 3)"), 8))), errc::trailing_bytes,
              {"found 8 bytes after the 0 data bytes"});
  // Without a zero, a product past 2**64 bytes is too large, and says so with the shape.
  check_error(sa::parse_npy_array(as_span(make_npy(1, numpy_header("<f4", "(2305843009213693952, 2, 5)"), 0))),
              errc::too_large, {"found shape (2305843009213693952, 2, 5), more than the limit"});
  // A zero-element file can be loaded from disk too.
  const npy_test::temp_file file("zero", make_npy(2, numpy_header("<f4", "(4, 0)"), 0));
  const auto from_file = sa::load_npy_array(file.str());
  REQUIRE(from_file.has_value());
  CHECK(from_file.value().header.shape == std::vector<std::size_t>{4, 0});
}

TEST_CASE("the run-time-shaped readers take a byte limit") {
  const auto bytes = make_npy(1, numpy_header(), 24);
  CHECK(sa::parse_npy_array(as_span(bytes), "x", 24).has_value());
  check_error(sa::parse_npy_array(as_span(bytes), "x", 23), errc::too_large,
              {"found shape (3, 2), more than the limit of 23 data bytes (max_bytes)"});
  CHECK(sa::to_string_view(errc::too_large) == "too_large");
}
