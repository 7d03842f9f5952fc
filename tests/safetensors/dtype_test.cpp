// SPDX-License-Identifier: BSL-1.0
// Run-time truth: the element types are converted exactly. Every one of the 65536 F16 values
// decodes to the float that IEEE 754 binary16 denotes (computed here with std::ldexp); BF16 is
// the top half of a float; a double model reads F64 bit for bit, and a float model refuses F64
// (not exact) naming the tensor.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <static_attention/io/safetensors.hpp>

#include "safetensors_test_support.hpp"

namespace sa = static_attention;

namespace {
double half_value(std::uint32_t h) {
  const double sign = (h & 0x8000u) != 0 ? -1.0 : 1.0;
  const int exponent = static_cast<int>((h >> 10) & 0x1fu);
  const double mantissa = static_cast<double>(h & 0x3ffu);
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa == 0 ? sign * std::numeric_limits<double>::infinity() : std::nan("");
  return sign * std::ldexp(1024.0 + mantissa, exponent - 25);
}

// The fixture with every F32 tensor re-encoded as F64 (offsets doubled): the same values.
std::vector<std::byte> widened(std::string_view fixture) {
  const auto p = st_test::split(st_test::read_bytes(st_test::fixture(fixture)));
  sa::detail::safetensors_header h;
  REQUIRE_FALSE(sa::detail::parse_safetensors_header(p.header, p.data.size(), h));
  std::string header = "{";
  std::vector<std::byte> data;
  for (const auto& t : h.tensors) {
    REQUIRE(t.dtype == "F32");
    const std::size_t begin = data.size();
    for (std::uint64_t k = t.begin; k < t.end; k += 4) {
      std::uint32_t bits = 0;
      for (std::uint64_t b = 4; b-- > 0;) bits = (bits << 8) | std::to_integer<std::uint32_t>(p.data[k + b]);
      st_test::put_le(data, std::bit_cast<std::uint64_t>(static_cast<double>(std::bit_cast<float>(bits))), 8);
    }
    // Appended piece by piece: GCC 12's -Wrestrict misfires at -O3 on `const char* + std::string`.
    std::string shape;
    for (const auto d : t.shape) {
      if (!shape.empty()) shape.append(",");
      shape.append(std::to_string(d));
    }
    if (header.size() > 1) header.append(",");
    header.append("\"").append(t.name).append("\":{\"dtype\":\"F64\",\"shape\":[").append(shape);
    header.append("],\"data_offsets\":[").append(std::to_string(begin)).append(",");
    header.append(std::to_string(data.size())).append("]}");
  }
  return st_test::file_of(header + "}", data);
}
}  // namespace

TEST_CASE("every F16 value decodes exactly") {
  int wrong = 0;
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    const float got = sa::detail::safetensors_half(h);
    const double want = half_value(h);
    if (std::isnan(want) ? !std::isnan(got)
                         : static_cast<double>(got) != want || std::signbit(got) != std::signbit(want))
      ++wrong;
  }
  CHECK(wrong == 0);
  CHECK(sa::detail::safetensors_half(0x0001u) == std::ldexp(1.0f, -24));
  CHECK(sa::detail::safetensors_half(0x7bffu) == 65504.0f);
}

TEST_CASE("BF16 is the top half of a float") {
  const std::byte two_bytes[] = {std::byte{0x80}, std::byte{0x3f}};  // 0x3f80: 1.0
  CHECK(sa::detail::safetensors_decode<float>(sa::detail::safetensors_kind::bf16, two_bytes) == 1.0f);
  const std::byte negative[] = {std::byte{0x49}, std::byte{0xc0}};  // 0xc049: -3.140625
  CHECK(sa::detail::safetensors_decode<double>(sa::detail::safetensors_kind::bf16, negative) == -3.140625);
}

TEST_CASE("F64: a double model reads it bit for bit, a float model refuses it") {
  const auto f64 = widened("book_f32.safetensors");
  auto wide = st_test::torch_model<double, st_test::tiny>(1);
  const auto r = st_test::load_both(*wide, f64);
  REQUIRE_MESSAGE(r.has_value(), r.error().message);
  auto from_f32 = st_test::torch_model<double, st_test::tiny>(2);
  REQUIRE(sa::load_safetensors(*from_f32, st_test::fixture("book_f32.safetensors")).has_value());
  CHECK(st_test::bytes_of(*wide) == st_test::bytes_of(*from_f32));
  st_test::check_refused(f64, sa::errc::dtype_mismatch, "tok_emb.weight", "found dtype F64");
}
