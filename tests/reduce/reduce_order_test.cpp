// SPDX-License-Identifier: BSL-1.0
// Run-time truth: the sums and variances of core/reduce.hpp equal torch 1.13's, bit for bit, on
// 1200 random shapes of float32 and float64 (reduce_reference.hpp, written by tests/reference/gen_reduce_reference.py).
// The shapes are run-time values here, so this drives the kernels behind the typed calls
// (detail::line_sums, all_sum, torch_var) directly; reduce_test.cpp checks the typed calls.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <static_attention/core/reduce.hpp>
#include <vector>

#include "reduce_reference.hpp"

namespace {

namespace sad = static_attention::detail;
namespace ref = reference::reduce;

// The generator of gen_reduce_reference.py: exact float32 values from an LCG.
template <class T>
std::vector<T> case_values(std::uint64_t seed, std::size_t count) {
  std::vector<T> out(count);
  std::uint64_t state = seed;
  for (auto& v : out) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto k = static_cast<std::int64_t>((state >> 40) & 0xFFFFFFu);
    const auto e = static_cast<int>((state >> 20) % 17);
    double scale = 1;
    for (int i = 0; i < 35 - e; ++i) scale /= 2;
    v = static_cast<T>(static_cast<double>(k - (std::int64_t{1} << 23)) * scale);
  }
  return out;
}

// What the library gives for one case.
template <class T>
std::vector<T> library_result(const ref::reduce_case& c, const std::vector<T>& x) {
  const auto n = static_cast<std::int64_t>(c.n);
  std::vector<T> out(c.outer * c.inner);
  const bool all = c.outer * c.inner == 1;
  const T mean = sad::all_sum(x.data(), x.size()) / static_cast<T>(x.size());
  switch (c.kind) {
    case ref::kind::sum_all:
      out[0] = sad::all_sum(x.data(), x.size());
      break;
    case ref::kind::sum_dim:
      sad::line_sums(x.data(), c.outer, c.n, c.inner, out.data());
      break;
    case ref::kind::var_all:
    case ref::kind::var_all_biased:
      out[0] = sad::torch_var::two_pass(x.data(), n, mean, c.kind == ref::kind::var_all ? 1.0 : 0.0);
      break;
    case ref::kind::var_dim:
    case ref::kind::var_dim_biased: {
      const double correction = c.kind == ref::kind::var_dim ? 1.0 : 0.0;
      if (all) {
        out[0] = sad::torch_var::two_pass(x.data(), n, mean, correction);
        break;
      }
      for (std::size_t o = 0; o < c.outer; ++o)
        for (std::size_t j = 0; j < c.inner; ++j)
          out[o * c.inner + j] = sad::torch_var::welford(x.data() + o * c.n * c.inner + j, n,
                                                         static_cast<std::int64_t>(c.inner), correction);
      break;
    }
  }
  return out;
}

// The bits of a result, as the fixture stores them.
std::uint64_t bits_of(float v) { return std::bit_cast<std::uint32_t>(v); }
std::uint64_t bits_of(double v) { return std::bit_cast<std::uint64_t>(v); }

// Counts the results of one case and those that differ from torch's.
template <class T>
void check_case(const ref::reduce_case& c, std::size_t& results, std::size_t& mismatches) {
  const auto got = library_result(c, case_values<T>(c.seed, c.outer * c.n * c.inner));
  for (std::size_t k = 0; k < got.size(); ++k, ++results) {
    if (bits_of(got[k]) != ref::expected_bits[c.first + k]) {
      ++mismatches;
      INFO("kind " << static_cast<int>(c.kind) << ", double " << c.is_double << ", outer " << c.outer << ", n "
                   << c.n << ", inner " << c.inner);
      CHECK(bits_of(got[k]) == ref::expected_bits[c.first + k]);
    }
  }
}

TEST_CASE("sums and variances equal torch 1.13's bit for bit on 1200 random shapes") {
  std::size_t mismatches = 0, results = 0;
  for (const auto& c : ref::cases) {
    if (c.is_double)
      check_case<double>(c, results, mismatches);
    else
      check_case<float>(c, results, mismatches);
  }
  CHECK(results == sizeof(ref::expected_bits) / sizeof(ref::expected_bits[0]));
  CHECK(mismatches == 0);
}

}  // namespace
