// SPDX-License-Identifier: BSL-1.0
// ulp_report: measures the accuracy contract of static_attention/core/math.hpp and prints a
// markdown table (the one in docs/accuracy.md).
//  * max ULP error against the long double <cmath> reference, on >= 10^6 inputs per
//    function and type (half uniform over the interesting range, half random bit patterns
//    over every binade) plus the edge cases;
//  * same bits: constant-evaluated tables (8 x 1024 inputs per function and type) against
//    the scalar functions at run time, and the array overloads against the scalar functions
//    on every sampled input; for sqrt, the compile-time software routine against the
//    hardware instruction on every sampled input.
// Build and run (from the repository root):
//   g++ -std=c++20 -O2 -Iinclude -Itests/math tools/dev/ulp_report.cpp -o /tmp/ulp_report && /tmp/ulp_report
// (add -march=native to check the bits with FMA hardware; clang++-16 works the same way).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <utility>

#include "math_test_support.hpp"

namespace {

using sa_math_test::fn;
namespace sa = static_attention;

constexpr std::size_t samples = 1'000'000;
constexpr std::size_t chunk = 1024;
constexpr std::size_t chunks = 8;

template <class T, fn F, std::size_t C>
struct ct_table {
  static constexpr auto inputs =
      sa_math_test::make_inputs<T, chunk>(F, 0x7ab1e000U + 16U * C + static_cast<unsigned>(F));
  static constexpr auto expected = sa_math_test::result_bits(F, inputs);
};

// Mismatches between the constexpr tables and run time, over all chunks.
template <class T, fn F, std::size_t... C>
std::size_t ct_mismatches(std::index_sequence<C...>) {
  std::size_t bad = 0;
  auto one = [&](const auto& in, const auto& expected) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      const volatile T* p = &in[i];  // keep the optimiser from folding the call
      const T x = *p;
      bad += sa_math_test::bits_of(sa_math_test::apply(F, x)) != expected[i] ? 1U : 0U;
    }
  };
  (one(ct_table<T, F, C>::inputs, ct_table<T, F, C>::expected), ...);
  return bad;
}

struct row {
  const char* name;
  const char* type;
  const char* bound;
  double max_ulp;
  double worst_input;
  std::size_t n;
  std::size_t ct_checked;
  std::size_t ct_bad;
  std::size_t array_bad;  // array overload vs scalar (sqrt: software vs hardware)
};

template <class T, fn F>
row measure(const char* name, const char* type, const char* bound) {
  const std::size_t n = samples + 16;
  auto in = std::make_unique<T[]>(n);
  auto out = std::make_unique<T[]>(n);
  const auto edges = sa_math_test::edge_inputs<T>();
  sa_math_test::rng r{0x0123'4567U + static_cast<unsigned>(F) + (sizeof(T) == 8 ? 100U : 0U)};
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = i < edges.size() ? edges[i] : sa_math_test::sample_input<T>(r, F, i);
  }
  const std::span<const T> src{in.get(), n};
  const std::span<T> dst{out.get(), n};
  if constexpr (F == fn::exp) {
    sa::exp(src, dst);
  } else if constexpr (F == fn::log) {
    sa::log(src, dst);
  } else if constexpr (F == fn::tanh) {
    sa::tanh(src, dst);
  }
  long double worst = 0;
  T worst_x{};
  std::size_t array_bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const T x = in[i];
    const T y = sa_math_test::apply(F, x);
    const long double e = sa_math_test::ulp_error(y, sa_math_test::reference(F, static_cast<long double>(x)));
    if (e > worst) {
      worst = e;
      worst_x = x;
    }
    if constexpr (F == fn::sqrt) {
      if (x > T{0} && x < std::numeric_limits<T>::infinity()) {
        const auto soft = static_cast<T>(sa::detail::math::sqrt_soft_positive(static_cast<double>(x)));
        array_bad += sa_math_test::bits_of(soft) != sa_math_test::bits_of(y) ? 1U : 0U;
      }
    } else {
      array_bad += sa_math_test::bits_of(out[i]) != sa_math_test::bits_of(y) ? 1U : 0U;
    }
  }
  const std::size_t ct_bad = ct_mismatches<T, F>(std::make_index_sequence<chunks>{});
  return {name,           type,   bound,    static_cast<double>(worst), static_cast<double>(worst_x), n,
          chunk * chunks, ct_bad, array_bad};
}

}  // namespace

int main() {
  const row rows[] = {
      measure<float, fn::exp>("exp", "float", "1"),     measure<double, fn::exp>("exp", "double", "1"),
      measure<float, fn::log>("log", "float", "1"),     measure<double, fn::log>("log", "double", "1"),
      measure<float, fn::sqrt>("sqrt", "float", "0.5"), measure<double, fn::sqrt>("sqrt", "double", "0.5"),
      measure<float, fn::tanh>("tanh", "float", "2"),   measure<double, fn::tanh>("tanh", "double", "2"),
  };
  std::printf(
      "| function | type | inputs | max ULP error | at x | contract | constexpr vs run time (mismatches / inputs) | "
      "run-time cross-check mismatches |\n");
  std::printf("|---|---|---:|---:|---|---:|---:|---:|\n");
  bool ok = true;
  for (const row& r : rows) {
    std::printf("| %s | %s | %zu | %.4f | %a | %s | %zu / %zu | %zu |\n", r.name, r.type, r.n, r.max_ulp, r.worst_input,
                r.bound, r.ct_bad, r.ct_checked, r.array_bad);
    ok = ok && r.ct_bad == 0 && r.array_bad == 0;
  }
  std::printf(
      "\nRun-time cross-check: array overload vs scalar (exp, log, tanh); "
      "constexpr software sqrt vs hardware sqrt (sqrt).\n");
  return ok ? 0 : 1;
}
