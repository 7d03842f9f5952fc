// SPDX-License-Identifier: BSL-1.0
// The integer nonlinearities against the float functions, over their whole input range:
// exp2_q16 on every Q16 input in [-32, 0] (run time, exhaustive; a sample in static_assert), the
// integer softmax against the float softmax, and the GPT's: the integer square root, the integer
// LayerNorm against the float LayerNorm (double) and the GELU table on all 256 input codes.
#include <cmath>
#include <cstdint>

#include <static_attention/core/random.hpp>
#include <static_attention/core/softmax.hpp>
#include <static_attention/quant.hpp>

#include "constexpr_check.hpp"

namespace sa = static_attention;
namespace d = sa::detail;

namespace {

// Measured (tools/quantize_report.cpp): max |exp2_q16(t) - 2^t 2^16| = 0.683 units of 2^-16
// (at t = -12 / 2^16): the Q16 rounding (0.5) plus the polynomial's 2.9e-6 relative error.
constexpr double exp2_bound_units = 0.69;

constexpr bool exp2_exact_points() {
  // 2^0 = 1, 2^-1 = 1/2, 2^-16 = one unit, 2^-17 rounds up to one unit (halves up), below it 0.
  return d::exp2_q16(0) == 65536 && d::exp2_q16(-65536) == 32768 && d::exp2_q16(-16 * 65536) == 1 &&
         d::exp2_q16(-17 * 65536) == 1 && d::exp2_q16(-17 * 65536 - 1) == 0 && d::exp2_q16(d::exp2_min_input - 1) == 0;
}

constexpr bool exp2_within_bound_on_a_sample() {
  // Every 1021st input of [-20, 0] in Q16, against the library's constexpr exp.
  for (std::int32_t t = 0; t >= -20 * 65536; t -= 1021) {
    const double exact = sa::exp(static_cast<double>(t) / 65536.0 * 0.6931471805599453) * 65536.0;
    const double diff = static_cast<double>(d::exp2_q16(t)) - exact;
    if (diff > exp2_bound_units || diff < -exp2_bound_units) return false;
  }
  return true;
}

// Softmax of one row of random int32 scores with a given beta, Q15 against float.
template <std::size_t N>
double softmax_error(unsigned long long seed, double beta_real, double spread) {
  sa::torch_generator gen{seed};
  const auto u = sa::rand<double, 1, N>(gen);
  std::int32_t scores[N]{};
  double x[N]{};
  for (std::size_t j = 0; j < N; ++j) {
    scores[j] = static_cast<std::int32_t>((u.elems[j] - 0.5) * spread);
    x[j] = static_cast<double>(scores[j]);
  }
  const auto beta = d::quantize_multiplier(beta_real * 1.4426950408889634 * 65536.0);
  std::uint16_t p[N]{};
  d::softmax_q15<N>(scores, N, beta, p);
  double top = x[0];
  for (double v : x) top = v > top ? v : top;
  double sum = 0;
  for (double v : x) sum += std::exp(beta_real * (v - top));
  double worst = 0;
  for (std::size_t j = 0; j < N; ++j) {
    const double err = std::fabs(p[j] / 32768.0 - std::exp(beta_real * (x[j] - top)) / sum);
    worst = err > worst ? err : worst;
  }
  return worst;
}

}  // namespace

TEST_CASE("exp2_q16: exact points") { SA_CHECK_BOTH(exp2_exact_points()); }
TEST_CASE("exp2_q16: within 0.69 units of 2^-16 on a sample, in static_assert") {
  SA_CHECK_BOTH(exp2_within_bound_on_a_sample());
}

TEST_CASE("exp2_q16: every input of its range, at run time") {
  double worst = 0;
  for (std::int32_t t = 0; t >= d::exp2_min_input - 65536; --t) {
    const double diff = std::fabs(static_cast<double>(d::exp2_q16(t)) - std::exp2(t / 65536.0) * 65536.0);
    worst = diff > worst ? diff : worst;
  }
  CHECK(worst <= exp2_bound_units);
}

TEST_CASE("softmax_q15: probabilities within 2^-15 of the float softmax") {
  // Scores spread over +-2^20 with beta from 1e-6 (nearly uniform) to 1e-3 (nearly one-hot):
  // the error is the Q15 rounding of each probability (2^-16) plus exp2's share.
  double worst = 0;
  for (unsigned long long seed = 1; seed <= 200; ++seed)
    for (double beta : {1e-6, 1e-5, 1e-4, 1e-3}) {
      const double e8 = softmax_error<8>(seed, beta, 1 << 21);
      const double e64 = softmax_error<64>(seed, beta, 1 << 21);
      worst = e8 > worst ? e8 : worst;
      worst = e64 > worst ? e64 : worst;
    }
  MESSAGE("softmax_q15 max |p - softmax| = " << worst);
  CHECK(worst <= 1.0 / 32768.0);
}

// ---- The GPT's nonlinearities: isqrt, integer LayerNorm, the GELU table ----
namespace {

// floor(sqrt(v)) by its definition: r^2 <= v < (r + 1)^2 ((r + 1)^2 = 2^64 exceeds every v).
constexpr bool is_floor_sqrt(std::uint64_t v, std::uint64_t r) {
  if (r > 0xffffffffu || r * r > v) return false;
  return r == 0xffffffffu || (r + 1) * (r + 1) > v;
}

constexpr bool isqrt_edges() {
  // Around every power of two and every perfect square of a power of two, and the top.
  for (int k = 0; k < 64; ++k) {
    const std::uint64_t p = std::uint64_t{1} << k;
    for (const std::uint64_t v : {p - 1, p, p + 1})
      if (!is_floor_sqrt(v, d::isqrt_u64(v))) return false;
  }
  for (std::uint64_t r = 1; r < (std::uint64_t{1} << 32); r = r * 3 + 1)
    for (const std::uint64_t v : {r * r - 1, r * r, r * r + 1})
      if (!is_floor_sqrt(v, d::isqrt_u64(v))) return false;
  return d::isqrt_u64(~std::uint64_t{0}) == 0xffffffffu && d::isqrt_u64(0) == 0;
}

// The float function: LayerNorm of real inputs s_x x in double, eps as the float model adds it.
template <std::size_t D>
double layer_norm_ref(const std::int16_t* x, double s_x, const sa::layer_norm<float, D>& ln, std::size_t j) {
  double mean = 0;
  for (std::size_t k = 0; k < D; ++k) mean += s_x * x[k];
  mean /= D;
  double var = 0;
  for (std::size_t k = 0; k < D; ++k) var += (s_x * x[k] - mean) * (s_x * x[k] - mean);
  var /= D;
  const double eps = static_cast<double>(sa::layer_norm<float, D>::eps);
  return static_cast<double>(ln.scale.elems[j]) * (s_x * x[j] - mean) / std::sqrt(var + eps) +
         static_cast<double>(ln.shift.elems[j]);
}

// Worst |integer LayerNorm - float LayerNorm|, in output steps, over `rows` random rows of
// int16 codes of amplitude up to `amplitude` (and a constant row, and a one-outlier row), with
// random gamma in [-2, 2) and beta in [-1, 1); the output range spans the float outputs.
template <std::size_t D>
double layer_norm_error(unsigned long long seed, double s_x, int amplitude, int rows) {
  sa::torch_generator gen{seed};
  sa::layer_norm<float, D> ln;
  const auto g = sa::rand<float, 1, D>(gen);
  const auto b = sa::rand<float, 1, D>(gen);
  for (std::size_t j = 0; j < D; ++j) {
    ln.scale.elems[j] = g.elems[j] * 4.0f - 2.0f;
    ln.shift.elems[j] = b.elems[j] * 2.0f - 1.0f;
  }
  std::int16_t x[D]{};
  const auto fill = [&](int r) {
    const auto u = sa::rand<double, 1, D>(gen);
    for (std::size_t k = 0; k < D; ++k) {
      const double a = r == 0 ? 0.0 : (u.elems[k] * 2.0 - 1.0) * amplitude;  // row 0: constant 0
      x[k] = static_cast<std::int16_t>(a);
    }
    if (r == 1) x[D / 2] = static_cast<std::int16_t>(amplitude);  // an outlier among small values
    if (r == 1)
      for (std::size_t k = 0; k < D; ++k)
        if (k != D / 2) x[k] = static_cast<std::int16_t>(x[k] / 64);
  };
  // The output range first: every float output of the rows.
  double lo = 0, hi = 0;
  for (int r = 0; r < rows; ++r) {
    fill(r);
    for (std::size_t j = 0; j < D; ++j) {
      const double y = layer_norm_ref<D>(x, s_x, ln, j);
      lo = y < lo ? y : lo;
      hi = y > hi ? y : hi;
    }
  }
  const auto out = d::choose_params(lo, hi);
  const auto q = d::quantize_layer_norm(ln, s_x, out);
  sa::torch_generator again{seed};
  (void)sa::rand<float, 1, D>(again);
  (void)sa::rand<float, 1, D>(again);
  gen = again;
  double worst = 0;
  for (int r = 0; r < rows; ++r) {
    fill(r);
    std::int8_t y[D]{};
    q.normalize_row(x, y);
    for (std::size_t j = 0; j < D; ++j) {
      const double got = static_cast<double>(out.scale) * (y[j] - out.zero_point);
      const double err = std::fabs(got - layer_norm_ref<D>(x, s_x, ln, j)) / static_cast<double>(out.scale);
      worst = err > worst ? err : worst;
    }
  }
  return worst;
}

// The extreme row of D = 1024: half +32767, half -32768 (the largest sum of squares), in
// static_assert, where an overflow would not be a constant expression.
constexpr bool layer_norm_extreme_row() {
  sa::layer_norm<float, 1024> ln;
  for (std::size_t j = 0; j < 1024; ++j) ln.scale.elems[j] = 1.0f;
  const auto q = d::quantize_layer_norm(ln, 1e-4, d::choose_params(-2.0, 2.0));
  std::int16_t x[1024]{};
  for (std::size_t j = 0; j < 1024; ++j) x[j] = static_cast<std::int16_t>(j % 2 == 0 ? 32767 : -32768);
  std::int8_t y[1024]{};
  q.normalize_row(x, y);
  // (x - mean) / sigma = +-1 (within 2^-16); at scale 4/255, zero point -1: codes 63 and -65.
  return y[0] == 63 && y[1] == -65;
}

// The float function: the book's tanh-GELU, in double.
double gelu_ref(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / 3.141592653589793) * (x + 0.044715 * x * x * x)));
}
constexpr double gelu_ref_constexpr(double x) {
  return 0.5 * x * (1.0 + sa::tanh(sa::sqrt(2.0 / 3.141592653589793) * (x + 0.044715 * x * x * x)));
}

// Worst |table - GELU| over all 256 input codes, in output steps.
template <class F>
constexpr double gelu_table_error(double lo, double hi, F gelu) {
  const auto in = d::choose_params(lo, hi);
  const auto q = d::make_gelu_table(in);
  double worst = 0;
  for (int c = -128; c <= 127; ++c) {
    const double x = static_cast<double>(in.scale) * (c - in.zero_point);
    const double got = static_cast<double>(q.output.scale) * (q(static_cast<std::int8_t>(c)) - q.output.zero_point);
    const double want = gelu(x);
    const double err = (got > want ? got - want : want - got) / static_cast<double>(q.output.scale);
    worst = err > worst ? err : worst;
  }
  return worst;
}

// Input ranges: the tiny GPT's, symmetric ones, mostly negative, mostly positive, and wide.
constexpr double gelu_ranges[][2] = {{-2.154, 2.445}, {-1, 1}, {-8, 0.5}, {-0.3, 12}, {-30, 30}};
// Each entry is the rounding of the float GELU: half an output step, plus the difference between
// the two evaluations of tanh (std::tanh and the library's, 1e-16 relative).
constexpr double gelu_bound_steps = 0.5 + 1e-9;

// One range per constant evaluation (Clang's budget).
constexpr bool gelu_table_within_half_a_step(std::size_t r) {
  return gelu_table_error(gelu_ranges[r][0], gelu_ranges[r][1], gelu_ref_constexpr) <= gelu_bound_steps;
}

}  // namespace

TEST_CASE("isqrt_u64: floor(sqrt(v)) around every power of two and square, in static_assert") {
  SA_CHECK_BOTH(isqrt_edges());
}

TEST_CASE("isqrt_u64: every v below 2^24 and 10^6 random 64-bit v, at run time") {
  bool ok = true;
  for (std::uint64_t v = 0; v < (std::uint64_t{1} << 24); ++v) ok = ok && is_floor_sqrt(v, d::isqrt_u64(v));
  sa::torch_generator gen{16};
  for (int k = 0; k < 1000000; ++k) {
    const std::uint64_t v = gen.random64() >> (gen.random() % 64);
    ok = ok && is_floor_sqrt(v, d::isqrt_u64(v));
  }
  CHECK(ok);
}

TEST_CASE("integer LayerNorm: within half an output step (and 10^-4) of the float LayerNorm") {
  // Amplitudes from 1 code (variance far below eps: eps dominates) to the full int16 range, at
  // residual scales from 2^-16 to 2^-8; D = 16, 64 and 768 (GPT-2's).
  double worst = 0;
  for (const double s_x : {0x1p-16, 0x1p-12, 0x1p-8})
    for (const int amplitude : {1, 3, 30, 300, 3000, 32767}) {
      const double e16 = layer_norm_error<16>(1, s_x, amplitude, 200);
      const double e64 = layer_norm_error<64>(2, s_x, amplitude, 50);
      const double e768 = layer_norm_error<768>(3, s_x, amplitude, 4);
      for (const double e : {e16, e64, e768}) worst = e > worst ? e : worst;
    }
  MESSAGE("integer LayerNorm max |int - float| = " << worst << " output steps");
  CHECK(worst <= 0.5 + 1e-4);
}

TEST_CASE("integer LayerNorm: the extreme row of D = 1024 does not overflow") {
  SA_CHECK_BOTH(layer_norm_extreme_row());
}

TEST_CASE("GELU table: every one of the 256 input codes within half an output step of the float GELU") {
  SA_CHECK_BOTH(gelu_table_within_half_a_step(0));
  SA_CHECK_BOTH(gelu_table_within_half_a_step(1));
  SA_CHECK_BOTH(gelu_table_within_half_a_step(2));
  SA_CHECK_BOTH(gelu_table_within_half_a_step(3));
  SA_CHECK_BOTH(gelu_table_within_half_a_step(4));
  double worst = 0;
  for (const auto& r : gelu_ranges) {
    const double e = gelu_table_error(r[0], r[1], gelu_ref);
    worst = e > worst ? e : worst;
  }
  MESSAGE("GELU table max |table - gelu| = " << worst << " output steps");
  CHECK(worst <= gelu_bound_steps);
}
