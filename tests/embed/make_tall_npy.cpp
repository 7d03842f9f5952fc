// SPDX-License-Identifier: BSL-1.0
// Writes a (300000, 1) float32 .npy of known values for embed.namespaces: larger than GCC's
// constexpr loop limit (262144) and Clang's step limit allow a loop to copy, so the generator
// must initialise it without one. Generated at build time rather than checked in (1.2 MB).
// Usage: make_tall_npy <out.npy>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <string>

#include "tall_values.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(tall_values::rows) + ", 1), }";
  while ((header.size() + 11) % 64 != 0) header += ' ';
  header += '\n';
  std::FILE* f = std::fopen(argv[1], "wb");
  if (f == nullptr) return 1;
  const unsigned char preamble[] = {0x93,
                                    'N',
                                    'U',
                                    'M',
                                    'P',
                                    'Y',
                                    1,
                                    0,
                                    static_cast<unsigned char>(header.size() & 0xff),
                                    static_cast<unsigned char>(header.size() >> 8)};
  std::fwrite(preamble, 1, sizeof preamble, f);
  std::fwrite(header.data(), 1, header.size(), f);
  for (std::size_t k = 0; k < tall_values::rows; ++k) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(tall_values::at(k));
    const unsigned char le[] = {static_cast<unsigned char>(bits), static_cast<unsigned char>(bits >> 8),
                                static_cast<unsigned char>(bits >> 16), static_cast<unsigned char>(bits >> 24)};
    std::fwrite(le, 1, 4, f);
  }
  return std::fclose(f) == 0 ? 0 : 1;
}
