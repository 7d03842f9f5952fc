// SPDX-License-Identifier: BSL-1.0
// Helpers of the npy tests: fixture paths, bit-exact comparison, crafted .npy images, temp files.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

#include <static_attention/io/npy.hpp>

namespace npy_test {

inline std::string fixture(std::string_view file) { return std::string{SA_NPY_FIXTURES_DIR} + "/" + std::string{file}; }

inline std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<std::byte> bytes(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) bytes[i] = static_cast<std::byte>(chars[i]);
  return bytes;
}

// Equal bit patterns, so that -0.0, NaN payloads and subnormals count: the loader must not
// convert, only copy.
template <class M, class Bits, std::size_t N>
bool same_bits(const M& m, const Bits (&bits)[N]) {
  if (N != M::size) return false;
  for (std::size_t k = 0; k < N; ++k)
    if (std::bit_cast<Bits>(m.elems[k]) != bits[k]) return false;
  return true;
}

// A .npy image: magic, version, header length of the version's width (or `header_len` if
// given), header text as is, then `data`.
inline std::vector<std::byte> make_npy(int major, std::string_view header, std::size_t data_bytes,
                                       long long header_len = -1, int minor = 0) {
  std::vector<std::byte> out;
  for (const int c : {0x93, int{'N'}, int{'U'}, int{'M'}, int{'P'}, int{'Y'}}) out.push_back(static_cast<std::byte>(c));
  out.push_back(static_cast<std::byte>(major));
  out.push_back(static_cast<std::byte>(minor));
  const auto len = static_cast<std::uint64_t>(header_len < 0 ? static_cast<long long>(header.size()) : header_len);
  const int width = major == 1 ? 2 : 4;
  for (int i = 0; i < width; ++i) out.push_back(static_cast<std::byte>((len >> (8 * i)) & 0xffu));
  for (const char c : header) out.push_back(static_cast<std::byte>(c));
  for (std::size_t i = 0; i < data_bytes; ++i) out.push_back(static_cast<std::byte>(i * 7 + 1));
  return out;
}

// The header numpy writes for a C-order float32 array of shape 3 x 2, padded like numpy pads.
inline std::string numpy_header(std::string_view descr = "<f4", std::string_view shape = "(3, 2)",
                                std::string_view fortran = "False") {
  std::string h = "{'descr': '" + std::string{descr} + "', 'fortran_order': " + std::string{fortran} +
                  ", 'shape': " + std::string{shape} + ", }";
  while ((h.size() + 11) % 64 != 0) h += ' ';
  return h + "\n";
}

inline std::span<const std::byte> as_span(const std::vector<std::byte>& v) { return {v.data(), v.size()}; }

// A file that removes itself.
struct temp_file {
  std::filesystem::path path;
  explicit temp_file(std::string_view stem, const std::vector<std::byte>& bytes)
      : path(std::filesystem::temp_directory_path() /
             (std::string{stem} + "." + std::to_string(reinterpret_cast<std::uintptr_t>(this)) + ".npy")) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  ~temp_file() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  std::string str() const { return path.string(); }
};

// An error of `code` whose message contains every one of `parts`.
template <class R>
void check_error(const R& r, static_attention::npy_errc code, std::initializer_list<std::string_view> parts) {
  REQUIRE_FALSE(r.has_value());
  REQUIRE_FALSE(static_cast<bool>(r));
  INFO(r.error().message);
  CHECK(static_attention::to_string_view(r.error().code) == static_attention::to_string_view(code));
  for (const auto part : parts) CHECK(r.error().message.find(part) != std::string::npos);
}

}  // namespace npy_test
