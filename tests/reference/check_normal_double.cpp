// SPDX-License-Identifier: BSL-1.0
// Driver of check_normal_double.py (not part of CTest: the script compares it with torch and
// mpmath). Built by the script, or by hand:
//   g++ -std=c++20 -O2 -I include tests/reference/check_normal_double.cpp -o check_normal_double
// Modes (binary output is native-endian, to stdout):
//   fill <f64|f32> <seed> <n> <calls>  torch_generator{seed}, then <calls> normal_fill calls of n
//                                     elements each, mean 0 and std 1: the n * calls values, raw.
//   sincos <count> <seed>             <count> angles 2 pi u (u a 53-bit uniform from a
//                                     splitmix64 stream), as text: x, then sin and cos as
//                                     double-doubles hi lo, in hex, one line each.
//   libm <count> <seed>               the same angles against libm's sin and cos: prints the
//                                     number of angles and of results that differ.
#include <static_attention/core/random.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace sa = static_attention;
namespace tn = sa::detail::torch_normal;

namespace {

std::uint64_t splitmix64(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e37'79b9'7f4a'7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58'476d'1ce4'e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d0'49bb'1331'11ebULL;
  return z ^ (z >> 31);
}

double angle(std::uint64_t& s) {
  return tn::two_pi_d * (static_cast<double>(splitmix64(s) >> 11) * 0x1p-53);
}

template <class T>
int fill(std::uint64_t seed, std::size_t n, std::size_t calls) {
  sa::torch_generator gen{seed};
  std::vector<T> out(n * calls);
  for (std::size_t c = 0; c < calls; ++c) sa::normal_fill(gen, out.data() + c * n, n, T{0}, T{1});
  return std::fwrite(out.data(), sizeof(T), out.size(), stdout) == out.size() ? 0 : 1;
}

int sincos_dump(std::size_t count, std::uint64_t seed) {
  for (std::size_t i = 0; i < count; ++i) {
    const double x = angle(seed);
    const tn::sin_cos_dd sc = tn::sincos_dd(x);
    std::printf("%a %a %a %a %a\n", x, sc.sin.hi, sc.sin.lo, sc.cos.hi, sc.cos.lo);
  }
  return 0;
}

int libm_compare(std::size_t count, std::uint64_t seed) {
  std::size_t differ_sin = 0, differ_cos = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double x = angle(seed);
    const tn::sin_cos_d sc = tn::sincos_0_2pi(x);
    const double s = std::sin(x), c = std::cos(x);
    if (std::memcmp(&s, &sc.sin, sizeof s) != 0) ++differ_sin;
    if (std::memcmp(&c, &sc.cos, sizeof c) != 0) ++differ_cos;
  }
  std::printf("%zu angles: sin differs %zu, cos differs %zu\n", count, differ_sin, differ_cos);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "fill") == 0) {
    const std::uint64_t seed = std::strtoull(argv[3], nullptr, 10);
    const std::size_t n = std::strtoull(argv[4], nullptr, 10), calls = std::strtoull(argv[5], nullptr, 10);
    return std::strcmp(argv[2], "f64") == 0 ? fill<double>(seed, n, calls) : fill<float>(seed, n, calls);
  }
  if (argc == 4 && std::strcmp(argv[1], "sincos") == 0)
    return sincos_dump(std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10));
  if (argc == 4 && std::strcmp(argv[1], "libm") == 0)
    return libm_compare(std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10));
  std::fprintf(stderr, "usage: see the comment at the top of check_normal_double.cpp\n");
  return 2;
}
