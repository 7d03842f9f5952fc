// SPDX-License-Identifier: BSL-1.0
// PyTorch-compatible random numbers: torch.manual_seed, torch.rand, tensor.uniform_,
// tensor.normal_ and the default nn.Linear and nn.Embedding initialisations, bit for bit, in
// constexpr code with no heap, no I/O and no <random> or <cmath>.
//
// The chapter seeds PyTorch and prints the numbers; with these functions the same seed gives the
// same weights here, so a test (or a static_assert) can compare against the chapter directly.
//
// What PyTorch 1.13 does on the CPU, and what this header reproduces:
//  * torch.manual_seed(s) restarts a standard MT19937 seeded with the low 32 bits of s, and
//    clears the generator's cached normal value.
//  * A float draw is the low 24 bits of one 32-bit output times 2^-24; a double draw is the
//    low 53 bits of random64() times 2^-53, where random64() is (first << 32) | second.
//  * tensor.uniform_(from, to) casts from and to to T and returns x * (to - from) + from in T.
//    PyTorch's AVX2/AVX-512 kernels (the ones every x86-64 CPU since 2013 runs) are compiled
//    with FMA contraction, so the product and the sum are rounded once, as fma(x, to - from,
//    from); this header computes that single rounding exactly, without FMA hardware.
//  * nn.Linear(in, out) draws its weight (out x in, row-major) then its bias, each with
//    uniform_(-bound, bound); the bounds are computed in double as torch.nn.init computes them.
//  * tensor.normal_(mean, std) (nn.Embedding's init is normal_(0, 1)) is Box-Muller:
//    - 16 elements or more (contiguous): one uniform per element, all drawn first; then per
//      block of 16, u1 = 1 - x[j] and u2 = x[j + 8] (j < 8) give x[j] = r cos(2 pi u2) std + mean
//      and x[j + 8] = r sin(2 pi u2) std + mean with r = sqrt(-2 log u1). If the size is not a
//      multiple of 16, 16 fresh uniforms overwrite the last 16 elements, which are transformed
//      again (so size + 16 draws). float: the AVX2 kernel's Cephes log and sincos in float
//      arithmetic (avx_mathfun.h), mean and std rounded to float. double: the same loop in
//      double with the log of glibc (Arm's, MIT) and correctly rounded sin and cos (glibc's
//      differ from them on about 1 angle in 730, by an ulp: docs/accuracy.md).
//    - fewer than 16 elements (float or double): at::normal_distribution<double> per element:
//      two 53-bit uniforms, r cos(theta) in double with the same log, sin and cos, and the pair's
//      r sin(theta) cached in the generator for the next such element (across calls, until
//      torch.manual_seed); then value * std + mean in double with one rounding, cast to T.
//    - The final `* std + mean` is one FMA on every path (x86-64 builds with FMA).
//   Reproduced exactly: PyTorch's AVX2 kernels with glibc 2.36's libm on a CPU with FMA (glibc
//   then runs __ieee754_log_fma and __sincos_fma). That is ATEN_CPU_CAPABILITY=avx2 and also
//   the default on AVX2 and AVX-512 CPUs: 1.13 has no AVX-512 normal_ kernel and runs the AVX2
//   one (measured: avx512, avx2 and the default give the same bits). Elsewhere the last bits
//   differ: PyTorch's DEFAULT capability (no AVX2) runs a scalar float loop (logf, sincosf, no
//   FMA), which changes 38% of float normal_(0, 1) draws on 16 elements or more (54% with mean
//   0.3, std 2.5), and rounds the double `* std + mean` twice (about 32% of double draws when
//   mean != 0 or std != 1); another libm may round some double log or sincos differently.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <static_attention/core/detail/torch_normal.hpp>
#include <static_attention/core/math.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>

namespace static_attention {

/// A source of 32-bit random draws, such as `torch_generator`.
template <class G>
concept random_source = requires(G& g) {
  { g.random() } -> std::same_as<std::uint32_t>;
};

/// The element types whose PyTorch draws this header reproduces: float and double.
template <class T>
concept torch_real = std::same_as<T, float> || std::same_as<T, double>;

/// PyTorch's CPU generator (`CPUGeneratorImpl`): an MT19937 seeded as `torch.manual_seed(seed)`
/// seeds it, plus the cached second value of the last double Box-Muller pair.
///
/// Holds 624 words of state (2.5 KB) by value; copying it forks the stream.
struct torch_generator {
  /// The state right after `torch.manual_seed(seed)`: only the low 32 bits of seed matter, and
  /// no normal value is cached.
  constexpr explicit torch_generator(std::uint64_t seed) noexcept {
    state_[0] = static_cast<std::uint32_t>(seed & 0xffff'ffffU);
    for (std::uint32_t j = 1; j < state_size; ++j)
      state_[j] = 1812433253U * (state_[j - 1] ^ (state_[j - 1] >> 30)) + j;
    next_ = state_size;  // twist before the first draw
  }

  /// One 32-bit draw (PyTorch's `CPUGeneratorImpl::random()`).
  constexpr std::uint32_t random() noexcept {
    // One declaration (with the twist in a comma expression) rather than a statement per line:
    // the constant evaluator charges per statement, and every draw comes through here.
    const std::uint32_t y0 = (next_ == state_size ? twist() : void(), state_[next_++]), y1 = y0 ^ (y0 >> 11),
                        y2 = y1 ^ ((y1 << 7) & 0x9d2c'5680U), y3 = y2 ^ ((y2 << 15) & 0xefc6'0000U);
    return y3 ^ (y3 >> 18);
  }

  /// One 64-bit draw (PyTorch's `CPUGeneratorImpl::random64()`): two 32-bit draws, the first
  /// in the high half.
  constexpr std::uint64_t random64() noexcept {
    const std::uint64_t hi = random(), lo = random();
    return (hi << 32) | lo;
  }

  /// One value of PyTorch's `at::normal_distribution<double>` before mean and std are applied,
  /// as `normal_` draws it for tensors of fewer than 16 elements: the cached value if there is
  /// one (`next_double_normal_sample`, then cleared); otherwise two 53-bit uniforms u1 and u2
  /// (u1 first), r = sqrt(-2 log(1 - u2)) and theta = 2 pi u1 in double with glibc's log and
  /// sincos: r cos(theta) is returned and r sin(theta) cached.
  constexpr double standard_normal() noexcept {
    if (has_cached_normal_) {
      has_cached_normal_ = false;
      return cached_normal_;
    }
    const double u_angle = unit_double(), u_radius = unit_double();
    const detail::torch_normal::sin_cos_d pair = detail::torch_normal::box_muller_pair(u_angle, u_radius);
    cached_normal_ = pair.sin;
    has_cached_normal_ = true;
    return pair.cos;
  }

 private:
  static constexpr std::uint32_t state_size = 624;
  static constexpr std::uint32_t shift_size = 397;

  constexpr void twist() noexcept {
    // One expression statement per word (the constant evaluator charges per statement): y is
    // the top bit of state_[k] and the low 31 bits of the next word, so y & 1 is the next
    // word's low bit.
    for (std::uint32_t k = 0; k < state_size; ++k)
      state_[k] = state_[(k + shift_size) % state_size] ^
                  (((state_[k] & 0x8000'0000U) | (state_[(k + 1) % state_size] & 0x7fff'ffffU)) >> 1) ^
                  ((state_[(k + 1) % state_size] & 1U) != 0 ? 0x9908'b0dfU : 0U);
    next_ = 0;
  }

  // torch.rand's double: the low 53 bits of random64() times 2^-53.
  constexpr double unit_double() noexcept { return static_cast<double>(random64() & 0x1f'ffff'ffff'ffffULL) * 0x1p-53; }

  std::uint32_t state_[state_size]{};
  std::uint32_t next_ = 0;
  // next_double_normal_sample. (PyTorch also keeps a float one, which none of the CPU kernels
  // reproduced here touches: normal_ always goes through the double distribution.)
  double cached_normal_ = 0.0;
  bool has_cached_normal_ = false;
};

namespace detail {

// x in [0, 1): PyTorch's uniform_real transformation of one draw (float: the low 24 bits of
// random() times 2^-24; double: the low 53 bits of random64() times 2^-53).
template <torch_real T>
constexpr T unit_draw(torch_generator& gen) noexcept;
template <>
constexpr float unit_draw<float>(torch_generator& gen) noexcept {
  return static_cast<float>(gen.random() & 0xff'ffffU) * 0x1p-24f;
}
template <>
constexpr double unit_draw<double>(torch_generator& gen) noexcept {
  return static_cast<double>(gen.random64() & 0x1f'ffff'ffff'ffffULL) * 0x1p-53;
}

// Python's `math.sqrt(2.0 / (1 + a ** 2))` with a = math.sqrt(5): kaiming_uniform_'s gain.
// (torch_normal::sqrt_d is correctly rounded, as math.sqrt and static_attention::sqrt are, and
// much cheaper to evaluate at compile time.)
constexpr double linear_weight_gain() noexcept {
  const double a = torch_normal::sqrt_d(5.0);
  return torch_normal::sqrt_d(2.0 / (1.0 + a * a));
}

// nn.Linear(fan_in, ...)'s weight bound, in kaiming_uniform_'s order of operations:
// std = gain / sqrt(fan_in), bound = sqrt(3) * std.
constexpr double linear_weight_bound(std::size_t fan_in) noexcept {
  const double std_dev = linear_weight_gain() / torch_normal::sqrt_d(static_cast<double>(fan_in));
  return torch_normal::sqrt_d(3.0) * std_dev;
}

// nn.Linear(fan_in, ...)'s bias bound: 1 / sqrt(fan_in).
constexpr double linear_bias_bound(std::size_t fan_in) noexcept {
  return 1.0 / torch_normal::sqrt_d(static_cast<double>(fan_in));
}

}  // namespace detail

/// One draw of `tensor.uniform_(from, to)` for a tensor of T: x * (to - from) + from computed in
/// T with one rounding (PyTorch's FMA kernel), where x in [0, 1) is a `torch.rand` draw.
template <torch_real T>
constexpr T uniform(torch_generator& gen, T from, T to) noexcept {
  return detail::torch_normal::fused(detail::unit_draw<T>(gen), to - from, from).value;
}

namespace detail {

// uniform(gen, from, to) into out[0..16), in order, as one statement (cheaper to evaluate).
template <torch_real T, std::size_t... I>
constexpr void uniform_block(T* out, torch_generator& gen, T from, T to, std::index_sequence<I...>) noexcept {
  ((out[I] = torch_normal::fused(unit_draw<T>(gen), to - from, from).value), ...);
}

template <torch_real T, std::size_t Size>
constexpr void fill_uniform(T (&elems)[Size], torch_generator& gen, T from, T to) noexcept {
  for (std::size_t b = 0; b + 16 <= Size; b += 16)
    uniform_block(elems + b, gen, from, to, std::make_index_sequence<16>{});
  for (std::size_t i = Size - Size % 16; i < Size; ++i) elems[i] = uniform(gen, from, to);
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
  const double bound = detail::linear_weight_bound(InFeatures);
  return uniform<T, OutFeatures, InFeatures>(gen, static_cast<T>(-bound), static_cast<T>(bound));
}

/// The bias of `nn.Linear(InFeatures, OutFeatures)` as PyTorch initialises it (drawn after the
/// weight): uniform in +-1 / sqrt(InFeatures), as a 1 x OutFeatures row.
template <torch_real T, std::size_t InFeatures, std::size_t OutFeatures>
constexpr matrix<T, 1, OutFeatures> linear_bias(torch_generator& gen) noexcept {
  const double bound = detail::linear_bias_bound(InFeatures);
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

namespace detail {

// Sixteen uniform draws into block[0..16), in order (torch's uniform_real_distribution(0, 1)).
template <torch_real T, std::size_t... I>
constexpr void draw_block(torch_generator& gen, T* block, std::index_sequence<I...>) noexcept {
  ((block[I] = unit_draw<T>(gen)), ...);
}

// One block of normal_fill: its 16 uniforms, then Box-Muller on the pairs (j, j + 8).
template <torch_real T>
constexpr void normal_block(torch_generator& gen, T* block, T mean, T std_dev) noexcept {
  draw_block(gen, block, std::make_index_sequence<16>{});
  torch_normal::box_muller_16(block, mean, std_dev, std::make_index_sequence<8>{});
}

}  // namespace detail

/// `tensor.normal_(mean, std)` on the n contiguous elements at data, as PyTorch 1.13's CPU
/// kernel fills them from gen, bit for bit (torch built with AVX2 kernels, glibc 2.36 libm):
///  * n >= 16: n uniforms (one draw each), then Box-Muller on each block of 16, element j paired
///    with j + 8; if n is not a multiple of 16, 16 more uniforms overwrite the last 16 elements,
///    which are transformed again. float: PyTorch's AVX2 kernel (Cephes log and sincos, float
///    arithmetic, mean and std rounded to float); double: glibc's log and correctly rounded sin and
///    cos in double (99.88% of draws bit for bit torch's, the rest within 2 ulp: docs/accuracy.md).
///  * n < 16: each element is one `standard_normal()` of gen (computed in double, with the
///    cached second value of each pair), times std plus mean in double with one rounding, then
///    rounded to T. PyTorch uses the double mean and std it was called with here; a float
///    `mean` or `std_dev` stands for that double exactly only if the value is a float.
/// Works in place with no copy and constant stack use, so data may be a large static array.
/// (T is deduced from data alone: normal_fill(gen, p, n, 0, 1) is fine.)
template <torch_real T>
constexpr void normal_fill(torch_generator& gen, T* data, std::size_t n, std::type_identity_t<T> mean,
                           std::type_identity_t<T> std_dev) noexcept {
  if (n < 16) {
    for (std::size_t i = 0; i < n; ++i) {
      data[i] = static_cast<T>(
          detail::torch_normal::fused(gen.standard_normal(), static_cast<double>(std_dev), static_cast<double>(mean))
              .value);
    }
    return;
  }
  // PyTorch draws all n uniforms before transforming; the transform draws nothing, so drawing
  // and transforming block by block gives the same values.
  for (std::size_t b = 0; b + 16 <= n; b += 16) detail::normal_block(gen, data + b, mean, std_dev);
  if (n % 16 != 0) {
    // The last n % 16 uniforms are drawn and then overwritten by the 16 fresh ones.
    for (std::size_t i = 0; i < n % 16; ++i) (void)detail::unit_draw<T>(gen);
    detail::normal_block(gen, data + (n - 16), mean, std_dev);
  }
}

/// `m.normal_(mean, std)` in place (see normal_fill); R x C elements in row-major order.
template <torch_real T, std::size_t R, std::size_t C>
constexpr void normal_(matrix<T, R, C>& m, torch_generator& gen, T mean = 0, T std_dev = 1) noexcept {
  normal_fill(gen, m.elems, R * C, mean, std_dev);
}

/// `torch.empty(R, C).normal_(mean, std)` (see normal_fill): R x C draws in row-major order.
/// `nn.Embedding(R, C)`'s weight is `normal<float, R, C>(gen)`.
template <torch_real T, std::size_t R, std::size_t C>
constexpr matrix<T, R, C> normal(torch_generator& gen, T mean = 0, T std_dev = 1) noexcept {
  matrix<T, R, C> m;
  normal_fill(gen, m.elems, R * C, mean, std_dev);
  return m;
}

/// `torch.empty(B, N, D).normal_(mean, std)` (see normal_fill): B x N x D draws in row-major
/// order (one tensor of B * N * D elements, not B matrices).
template <torch_real T, std::size_t B, std::size_t N, std::size_t D>
constexpr tensor<T, B, N, D> normal(torch_generator& gen, T mean = 0, T std_dev = 1) noexcept {
  tensor<T, B, N, D> t;
  normal_fill(gen, t.elems, B * N * D, mean, std_dev);
  return t;
}

}  // namespace static_attention
