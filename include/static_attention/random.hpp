// PyTorch-compatible random numbers: torch.manual_seed, torch.rand, tensor.uniform_ and the
// default nn.Linear initialisation, bit for bit, in constexpr code with no heap and no <random>.
//
// The chapter seeds PyTorch and prints the numbers; with these functions the same seed gives the
// same weights here, so a test (or a static_assert) can compare against the chapter directly.
//
// What PyTorch 1.13 does on the CPU, and what this header reproduces:
//  * torch.manual_seed(s) restarts a standard MT19937 seeded with the low 32 bits of s.
//  * A float draw is the low 24 bits of one 32-bit output times 2^-24; a double draw is the
//    low 53 bits of random64() times 2^-53, where random64() is (first << 32) | second.
//  * tensor.uniform_(from, to) casts from and to to T and returns x * (to - from) + from in T.
//    PyTorch's AVX2/AVX-512 kernels (the ones every x86-64 CPU since 2013 runs) are compiled
//    with FMA contraction, so the product and the sum are rounded once, as fma(x, to - from,
//    from); this header computes that single rounding exactly, without FMA hardware.
//  * nn.Linear(in, out) draws its weight (out x in, row-major) then its bias, each with
//    uniform_(-bound, bound); the bounds are computed in double as torch.nn.init computes them.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>

#include <static_attention/math.hpp>
#include <static_attention/matrix.hpp>
#include <static_attention/tensor.hpp>

namespace static_attention {

/// The element types whose PyTorch draws this header reproduces: float and double.
template <class T>
concept torch_real = std::same_as<T, float> || std::same_as<T, double>;

/// PyTorch's CPU generator: an MT19937 seeded as `torch.manual_seed(seed)` seeds it.
///
/// Holds 624 words of state (2.5 KB) by value; copying it forks the stream.
struct torch_generator {
  /// The state right after `torch.manual_seed(seed)`: only the low 32 bits of seed matter.
  constexpr explicit torch_generator(std::uint64_t seed) noexcept {
    state_[0] = static_cast<std::uint32_t>(seed & 0xffff'ffffU);
    for (std::uint32_t j = 1; j < state_size; ++j) {
      const std::uint32_t prev = state_[j - 1];
      state_[j] = 1812433253U * (prev ^ (prev >> 30)) + j;
    }
    next_ = state_size;  // twist before the first draw
  }

  /// One 32-bit draw (PyTorch's `CPUGeneratorImpl::random()`).
  constexpr std::uint32_t random() noexcept {
    if (next_ == state_size) twist();
    std::uint32_t y = state_[next_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c'5680U;
    y ^= (y << 15) & 0xefc6'0000U;
    y ^= y >> 18;
    return y;
  }

  /// One 64-bit draw (PyTorch's `CPUGeneratorImpl::random64()`): two 32-bit draws, the first
  /// in the high half.
  constexpr std::uint64_t random64() noexcept {
    const std::uint64_t hi = random();
    const std::uint64_t lo = random();
    return (hi << 32) | lo;
  }

 private:
  static constexpr std::uint32_t state_size = 624;
  static constexpr std::uint32_t shift_size = 397;

  constexpr void twist() noexcept {
    for (std::uint32_t k = 0; k < state_size; ++k) {
      const std::uint32_t y = (state_[k] & 0x8000'0000U) | (state_[(k + 1) % state_size] & 0x7fff'ffffU);
      state_[k] = state_[(k + shift_size) % state_size] ^ (y >> 1) ^ ((y & 1U) != 0 ? 0x9908'b0dfU : 0U);
    }
    next_ = 0;
  }

  std::uint32_t state_[state_size]{};
  std::uint32_t next_ = 0;
};

namespace detail {

// The exact helpers below must not be fused into FMAs by the compiler: TwoSum and Dekker's
// product are exact only when every operation is rounded on its own.
SA_DETAIL_MATH_BEGIN

// a + b = s + e exactly (Knuth's TwoSum; no ordering requirement).
struct two_sum_result {
  double s;
  double e;
};
constexpr two_sum_result two_sum(double a, double b) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const double s = a + b;
  const double bb = s - a;
  const double e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

// a * b = p + e exactly (Dekker's product with Veltkamp's split; |a|, |b| < 2^995).
constexpr two_sum_result two_product(double a, double b) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  constexpr double splitter = 0x1p27 + 1.0;
  const double ta = splitter * a;
  const double ah = ta - (ta - a);
  const double al = a - ah;
  const double tb = splitter * b;
  const double bh = tb - (tb - b);
  const double bl = b - bh;
  const double p = a * b;
  const double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  return {p, e};
}

// a + b rounded to odd: exact sums are returned as they are; otherwise, of the two doubles
// around the exact sum, the one whose last mantissa bit is 1. Rounding to odd and then to a
// narrower precision (or adding a larger term) rounds once, which is what FMA emulation needs.
constexpr double add_round_to_odd(double a, double b) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const auto [s, e] = two_sum(a, b);
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(s);
  if (e == 0.0 || (bits & 1U) != 0) return s;
  // s is even and inexact: step one ulp towards the exact sum (away from zero when e has s's sign).
  const bool toward_larger_magnitude = (s > 0.0) == (e > 0.0);
  return std::bit_cast<double>(toward_larger_magnitude ? bits + 1 : bits - 1);
}

// fma(x, w, f) in float, rounded once: x * w is exact in double (24 + 24 bits), the sum rounded
// to odd in double keeps enough bits for the final rounding to float to be the correct one.
constexpr float fused_multiply_add(float x, float w, float f) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const double product = static_cast<double>(x) * static_cast<double>(w);
  return static_cast<float>(add_round_to_odd(product, static_cast<double>(f)));
}

// fma(x, w, f) in double, rounded once (Boldo and Melquiond, "Emulation of FMA and correctly
// rounded sums: proved algorithms using rounding to odd", IEEE TC 2008, algorithm 5):
// x * w = uh + ul exactly, f + uh = th + tl exactly, then RN(th + RO(tl + ul)).
constexpr double fused_multiply_add(double x, double w, double f) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const auto [uh, ul] = two_product(x, w);
  const auto [th, tl] = two_sum(f, uh);
  return th + add_round_to_odd(tl, ul);
}

SA_DETAIL_MATH_END

// x in [0, 1): PyTorch's uniform_real transformation of one draw.
template <torch_real T>
constexpr T unit_draw(torch_generator& gen) noexcept {
  if constexpr (std::same_as<T, float>) {
    return static_cast<T>(gen.random() & 0xff'ffffU) * 0x1p-24f;
  } else {
    return static_cast<T>(gen.random64() & 0x1f'ffff'ffff'ffffULL) * 0x1p-53;
  }
}

// Python's `math.sqrt(2.0 / (1 + a ** 2))` with a = math.sqrt(5): kaiming_uniform_'s gain.
constexpr double linear_weight_gain() noexcept {
  const double a = static_attention::sqrt(5.0);
  return static_attention::sqrt(2.0 / (1.0 + a * a));
}

}  // namespace detail

/// One draw of `tensor.uniform_(from, to)` for a tensor of T: x * (to - from) + from computed in
/// T with one rounding (PyTorch's FMA kernel), where x in [0, 1) is a `torch.rand` draw.
template <torch_real T>
constexpr T uniform(torch_generator& gen, T from, T to) noexcept {
  const T x = detail::unit_draw<T>(gen);
  return detail::fused_multiply_add(x, to - from, from);
}

namespace detail {
template <torch_real T, std::size_t Size>
constexpr void fill_uniform(T (&elems)[Size], torch_generator& gen, T from, T to) noexcept {
  for (auto& e : elems) e = uniform(gen, from, to);
}
}  // namespace detail

/// `torch.empty(R, C).uniform_(from, to)`: R x C draws in row-major order.
template <torch_real T, std::size_t R, std::size_t C>
constexpr matrix<T, R, C> uniform(torch_generator& gen, T from, T to) noexcept {
  matrix<T, R, C> m;
  detail::fill_uniform(m.elems, gen, from, to);
  return m;
}

/// `torch.empty(B, N, D).uniform_(from, to)`: B x N x D draws in row-major order.
template <torch_real T, std::size_t B, std::size_t N, std::size_t D>
constexpr tensor<T, B, N, D> uniform(torch_generator& gen, T from, T to) noexcept {
  tensor<T, B, N, D> t;
  detail::fill_uniform(t.elems, gen, from, to);
  return t;
}

/// `torch.rand(R, C)` (dtype float or double), element for element.
template <torch_real T, std::size_t R, std::size_t C>
constexpr matrix<T, R, C> rand(torch_generator& gen) noexcept {
  matrix<T, R, C> m;
  for (auto& e : m.elems) e = detail::unit_draw<T>(gen);
  return m;
}

/// `torch.rand(B, N, D)` (dtype float or double), element for element.
template <torch_real T, std::size_t B, std::size_t N, std::size_t D>
constexpr tensor<T, B, N, D> rand(torch_generator& gen) noexcept {
  tensor<T, B, N, D> t;
  for (auto& e : t.elems) e = detail::unit_draw<T>(gen);
  return t;
}

/// The weight of `nn.Linear(InFeatures, OutFeatures)` as PyTorch initialises it:
/// `kaiming_uniform_(weight, a=sqrt(5))`, i.e. uniform in +-gain * sqrt(3 / InFeatures) with
/// gain = sqrt(2 / (1 + a^2)). Shape OutFeatures x InFeatures, PyTorch's layout.
template <torch_real T, std::size_t InFeatures, std::size_t OutFeatures>
constexpr matrix<T, OutFeatures, InFeatures> linear_weight(torch_generator& gen) noexcept {
  // The order of operations is kaiming_uniform_'s: std = gain / sqrt(fan_in), bound = sqrt(3) * std.
  const double std_dev = detail::linear_weight_gain() / static_attention::sqrt(static_cast<double>(InFeatures));
  const double bound = static_attention::sqrt(3.0) * std_dev;
  return uniform<T, OutFeatures, InFeatures>(gen, static_cast<T>(-bound), static_cast<T>(bound));
}

/// The bias of `nn.Linear(InFeatures, OutFeatures)` as PyTorch initialises it (drawn after the
/// weight): uniform in +-1 / sqrt(InFeatures), as a 1 x OutFeatures row.
template <torch_real T, std::size_t InFeatures, std::size_t OutFeatures>
constexpr matrix<T, 1, OutFeatures> linear_bias(torch_generator& gen) noexcept {
  const double bound = 1.0 / static_attention::sqrt(static_cast<double>(InFeatures));
  return uniform<T, 1, OutFeatures>(gen, static_cast<T>(-bound), static_cast<T>(bound));
}

/// The parameters of one `nn.Linear(In, Out)`: y = x weight^T + bias.
template <torch_real T, std::size_t In, std::size_t Out>
struct linear_params {
  /// Out x In, PyTorch's layout.
  matrix<T, Out, In> weight;
  /// 1 x Out, added to every row.
  matrix<T, 1, Out> bias;
};

/// `nn.Linear(In, Out)` with bias, initialised as PyTorch does: the weight, then the bias.
template <torch_real T, std::size_t In, std::size_t Out>
constexpr linear_params<T, In, Out> linear(torch_generator& gen) noexcept {
  linear_params<T, In, Out> p;
  p.weight = linear_weight<T, In, Out>(gen);
  p.bias = linear_bias<T, In, Out>(gen);
  return p;
}

}  // namespace static_attention
