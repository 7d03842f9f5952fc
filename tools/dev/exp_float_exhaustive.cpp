// SPDX-License-Identifier: BSL-1.0
// Exhaustive accuracy check of static_attention::exp(float) and tanh(float): every one of the
// 2^32 bit patterns, through the array overload (checked bit for bit against the scalar), with
// the error measured against glibc's double exp/tanh (error below 2^-52 relative, far below
// what a float ulp can resolve); the worst input is re-measured against long double expl/tanhl.
// Reports the max error in ulps (of the exact value; a subnormal ulp is 2^-149), the count of
// results that differ from the correctly rounded one, and checks the special values (NaN in,
// quiet NaN with the same payload out; overflow to +inf, underflow to +0, tanh(+-inf) = +-1).
// Exits non-zero if exp exceeds 1 ulp, tanh exceeds 2 ulp, or any special value or array
// result is wrong.
//
// Build and run from the repository root (about a minute on two cores):
//   g++ -std=c++20 -O2 -pthread -Iinclude tools/dev/exp_float_exhaustive.cpp -o /tmp/exp_exhaustive
//   /tmp/exp_exhaustive            # both functions; or pass "exp" or "tanh"
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <span>
#include <thread>
#include <vector>

#include "static_attention/core/math.hpp"

namespace {

enum class fn { exp, tanh };

struct tally {
  double max_ulp = 0.0;
  std::uint32_t worst = 0;           // input bits of max_ulp
  std::uint64_t not_cr = 0;          // results other than the (double-)rounded reference
  std::uint64_t bad_special = 0;     // wrong special value, NaN handling or sign
  std::uint64_t array_mismatch = 0;  // array overload vs scalar, bitwise
};

// ulp of the exact value v (v finite, not 0) on the float grid.
double float_ulp(double v) {
  const double a = std::fabs(v);
  if (a < 0x1p-126) {
    return 0x1p-149;
  }
  int e = 0;
  (void)std::frexp(a, &e);  // a = m 2^e, 0.5 <= m < 1
  return std::ldexp(1.0, e - 24);
}

double reference(fn f, float x) {
  const double xd = static_cast<double>(x);
  return f == fn::exp ? std::exp(xd) : std::tanh(xd);
}

long double reference_long(fn f, float x) {
  const long double xl = static_cast<long double>(x);
  return f == fn::exp ? std::exp(xl) : std::tanh(xl);
}

void check_one(fn f, float x, float y, tally& t) {
  const std::uint32_t xb = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t yb = std::bit_cast<std::uint32_t>(y);
  if (std::isnan(x)) {
    if (yb != (xb | 0x0040'0000U)) {
      ++t.bad_special;
    }
    return;
  }
  const double ref = reference(f, x);
  const float cr = static_cast<float>(ref);
  if (std::bit_cast<std::uint32_t>(cr) != yb) {
    ++t.not_cr;
  }
  if (std::isinf(cr) || cr == 0.0f) {
    // Overflow, underflow to +0, exp(+-inf), or tanh(+-0): only the exact value is right.
    if (std::bit_cast<std::uint32_t>(cr) != yb) {
      ++t.bad_special;
    }
    return;
  }
  if (std::isinf(y) || std::isnan(y) || std::signbit(y) != std::signbit(cr)) {
    ++t.bad_special;
    return;
  }
  const double err = std::fabs(static_cast<double>(y) - ref) / float_ulp(ref);
  if (err > t.max_ulp) {
    t.max_ulp = err;
    t.worst = xb;
  }
}

// Inputs [begin, end) as bit patterns, in blocks through the array overload.
void sweep(fn f, std::uint64_t begin, std::uint64_t end, tally& t) {
  constexpr std::size_t block = 4096;
  std::vector<float> in(block);
  std::vector<float> out(block);
  for (std::uint64_t b = begin; b < end; b += block) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(block, end - b));
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = std::bit_cast<float>(static_cast<std::uint32_t>(b + i));
    }
    const std::span<const float> src{in.data(), n};
    const std::span<float> dst{out.data(), n};
    if (f == fn::exp) {
      static_attention::exp(src, dst);
    } else {
      static_attention::tanh(src, dst);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const float scalar = f == fn::exp ? static_attention::exp(in[i]) : static_attention::tanh(in[i]);
      if (std::bit_cast<std::uint32_t>(scalar) != std::bit_cast<std::uint32_t>(out[i])) {
        ++t.array_mismatch;
      }
      check_one(f, in[i], out[i], t);
    }
  }
}

bool run(fn f) {
  const char* name = f == fn::exp ? "exp" : "tanh";
  const double bound = f == fn::exp ? 1.0 : 2.0;
  const unsigned threads = std::max(1U, std::min(2U, std::thread::hardware_concurrency()));
  std::vector<tally> parts(threads);
  std::vector<std::thread> pool;
  constexpr std::uint64_t total = std::uint64_t{1} << 32;
  for (unsigned i = 0; i < threads; ++i) {
    const std::uint64_t lo = total * i / threads;
    const std::uint64_t hi = total * (i + 1) / threads;
    pool.emplace_back([f, lo, hi, &part = parts[i]] { sweep(f, lo, hi, part); });
  }
  for (auto& th : pool) {
    th.join();
  }
  tally all;
  for (const tally& p : parts) {
    if (p.max_ulp > all.max_ulp) {
      all.max_ulp = p.max_ulp;
      all.worst = p.worst;
    }
    all.not_cr += p.not_cr;
    all.bad_special += p.bad_special;
    all.array_mismatch += p.array_mismatch;
  }
  // Re-measure the worst input against the long double reference (64-bit significand).
  const float wx = std::bit_cast<float>(all.worst);
  const float wy = f == fn::exp ? static_attention::exp(wx) : static_attention::tanh(wx);
  const long double refl = reference_long(f, wx);
  const double err_long = static_cast<double>(std::fabs(static_cast<long double>(wy) - refl) /
                                              static_cast<long double>(float_ulp(static_cast<double>(refl))));
  std::printf(
      "%s(float): 2^32 inputs, max error %.6f ulp at x = %a (%.6f ulp vs long double), "
      "%llu results not correctly rounded, %llu special-value errors, %llu array/scalar "
      "mismatches: %s (bound %.0f ulp)\n",
      name, all.max_ulp, static_cast<double>(wx), err_long, static_cast<unsigned long long>(all.not_cr),
      static_cast<unsigned long long>(all.bad_special), static_cast<unsigned long long>(all.array_mismatch),
      (all.max_ulp <= bound && err_long <= bound && all.bad_special == 0 && all.array_mismatch == 0) ? "PASS" : "FAIL",
      bound);
  return all.max_ulp <= bound && err_long <= bound && all.bad_special == 0 && all.array_mismatch == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool only = argc > 1;
  bool ok = true;
  if (!only || std::strcmp(argv[1], "exp") == 0) {
    ok = run(fn::exp) && ok;
  }
  if (!only || std::strcmp(argv[1], "tanh") == 0) {
    ok = run(fn::tanh) && ok;
  }
  return ok ? 0 : 1;
}
