// The integer nonlinearities against the float functions, over their whole input range:
// exp2_q16 on every Q16 input in [-32, 0] (run time, exhaustive; a sample in static_assert), and
// the integer softmax against the float softmax.
#include <cmath>
#include <cstdint>

#include <static_attention/quantize.hpp>
#include <static_attention/random.hpp>
#include <static_attention/softmax.hpp>

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
