// SPDX-License-Identifier: BSL-1.0
// tensor.normal_ against PyTorch 1.13's draws (AVX2 kernels, glibc 2.36's libm), bit for bit,
// in both worlds: each check is a static_assert and a run-time CHECK (large tensors:
// normal_large_test.cpp, run time only). Every draw here matches; about one double normal in
// 800 elsewhere does not, where glibc's sincos rounds incorrectly (normal_double_rate_test.cpp).
#include <static_attention/core/random.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "constexpr_check.hpp"
#include "normal_reference.hpp"

namespace sa = static_attention;
namespace ref = reference::normal;
namespace tn = sa::detail::torch_normal;

namespace {

// Bit for bit: == would take -0 for +0.
template <class T>
constexpr bool same_bits(T got, double expected) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<std::uint32_t>(got) == std::bit_cast<std::uint32_t>(static_cast<float>(expected));
  } else {
    return std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(expected);
  }
}

template <class T, std::size_t N>
constexpr bool all_same_bits(const T* got, const double (&expected)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (!same_bits(got[i], expected[i])) return false;
  return true;
}

// normal<T, R, C> right after torch_generator{seed} is torch.empty(R * C).normal_(mean, std)
// right after torch.manual_seed(seed).
template <class T, std::size_t R, std::size_t C>
constexpr bool normal_matches(std::uint64_t seed, const double (&expected)[R * C], T mean = 0, T std_dev = 1) {
  sa::torch_generator gen{seed};
  const sa::matrix<T, R, C> m = sa::normal<T, R, C>(gen, mean, std_dev);
  return all_same_bits(m.elems, expected);
}

// Every size class: fewer than 16 (the cached double pairs), 16, tails of 1 to 15 past a block,
// several blocks, 1029 = 64 blocks + 5.
#define SA_NORMAL_SIZES(T, dt, seed)                                                                                 \
  (normal_matches<T, 1, 1>(seed, ref::dt##_##seed##_1) && normal_matches<T, 1, 2>(seed, ref::dt##_##seed##_2) &&     \
   normal_matches<T, 3, 1>(seed, ref::dt##_##seed##_3) && normal_matches<T, 1, 7>(seed, ref::dt##_##seed##_7) &&     \
   normal_matches<T, 3, 5>(seed, ref::dt##_##seed##_15) && normal_matches<T, 4, 4>(seed, ref::dt##_##seed##_16) &&   \
   normal_matches<T, 1, 17>(seed, ref::dt##_##seed##_17) && normal_matches<T, 31, 1>(seed, ref::dt##_##seed##_31) && \
   normal_matches<T, 2, 16>(seed, ref::dt##_##seed##_32) && normal_matches<T, 5, 8>(seed, ref::dt##_##seed##_40) &&  \
   normal_matches<T, 10, 10>(seed, ref::dt##_##seed##_100) &&                                                        \
   normal_matches<T, 3, 343>(seed, ref::dt##_##seed##_1029))

constexpr bool float_sizes_seed_0() { return SA_NORMAL_SIZES(float, f32, 0); }
constexpr bool float_sizes_seed_123() { return SA_NORMAL_SIZES(float, f32, 123); }
constexpr bool float_sizes_seed_789() { return SA_NORMAL_SIZES(float, f32, 789); }
constexpr bool double_sizes_seed_0() { return SA_NORMAL_SIZES(double, f64, 0); }
constexpr bool double_sizes_seed_123() { return SA_NORMAL_SIZES(double, f64, 123); }
constexpr bool double_sizes_seed_789() { return SA_NORMAL_SIZES(double, f64, 789); }

#undef SA_NORMAL_SIZES

// mean and std: (0.5, 2), (-1.25, 0.75), and GPT-2's (0.1, 0.02), which float cannot hold: for 16
// elements or more torch rounds them to float, as a float argument here is.
#define SA_NORMAL_PARAMS(T, dt, m, mean, std_dev)                              \
  (normal_matches<T, 1, 1>(123, ref::dt##_123_1_##m, T(mean), T(std_dev)) &&   \
   normal_matches<T, 1, 7>(123, ref::dt##_123_7_##m, T(mean), T(std_dev)) &&   \
   normal_matches<T, 1, 16>(123, ref::dt##_123_16_##m, T(mean), T(std_dev)) && \
   normal_matches<T, 1, 40>(123, ref::dt##_123_40_##m, T(mean), T(std_dev)) && \
   normal_matches<T, 1, 100>(123, ref::dt##_123_100_##m, T(mean), T(std_dev)))

template <class T>
constexpr bool mean_and_std_match() {
  if constexpr (std::is_same_v<T, float>) {
    return SA_NORMAL_PARAMS(float, f32, m0, 0.5, 2.0) && SA_NORMAL_PARAMS(float, f32, m1, -1.25, 0.75) &&
           normal_matches<float, 1, 16>(123, ref::f32_123_16_gpt2, 0.1f, 0.02f) &&
           normal_matches<float, 1, 40>(123, ref::f32_123_40_gpt2, 0.1f, 0.02f) &&
           normal_matches<float, 1, 100>(123, ref::f32_123_100_gpt2, 0.1f, 0.02f);
  } else {
    return SA_NORMAL_PARAMS(double, f64, m0, 0.5, 2.0) && SA_NORMAL_PARAMS(double, f64, m1, -1.25, 0.75) &&
           normal_matches<double, 1, 7>(123, ref::f64_123_7_gpt2, 0.1, 0.02) &&
           normal_matches<double, 1, 16>(123, ref::f64_123_16_gpt2, 0.1, 0.02) &&
           normal_matches<double, 1, 40>(123, ref::f64_123_40_gpt2, 0.1, 0.02) &&
           normal_matches<double, 1, 100>(123, ref::f64_123_100_gpt2, 0.1, 0.02);
  }
}

#undef SA_NORMAL_PARAMS

// normal_ on sizes 3, 1, 7, 17, 2, 1, 16, 1 from one generator: a call of fewer than 16 elements
// may start with the value the previous one cached, and calls of 16 or more leave it alone.
template <class T>
constexpr bool cache_carries_across_calls(std::uint64_t seed, const double (&expected)[48]) {
  sa::torch_generator gen{seed};
  T out[48]{};
  std::size_t at = 0;
  constexpr std::size_t sizes[] = {3, 1, 7, 17, 2, 1, 16, 1};
  for (const std::size_t n : sizes) {
    sa::normal_fill(gen, out + at, n, T{0}, T{1});
    at += n;
  }
  return at == 48 && all_same_bits(out, expected);
}

// torch.manual_seed clears the cache: a new generator starts a fresh pair.
template <class T>
constexpr bool reseeding_clears_the_cache(const double (&one)[1], const double (&two)[2]) {
  sa::torch_generator gen{123};
  const auto first = sa::normal<T, 1, 1>(gen);  // caches the pair's second value
  gen = sa::torch_generator{123};
  const auto again = sa::normal<T, 1, 1>(gen);
  const auto second = sa::normal<T, 1, 1>(gen);  // the cached value
  return same_bits(first(0, 0), one[0]) && same_bits(again(0, 0), one[0]) && same_bits(second(0, 0), two[1]);
}

// A copy of the generator carries the cached value too: both continue identically.
constexpr bool copies_carry_the_cache() {
  sa::torch_generator gen{789};
  (void)sa::normal<double, 1, 1>(gen);
  sa::torch_generator fork = gen;
  const auto a = sa::normal<double, 1, 3>(gen);
  const auto b = sa::normal<double, 1, 3>(fork);
  return same_bits(a(0, 0), ref::f64_789_2[1]) && a == b;
}

// Every form draws the same values: normal<T, R, C>, normal_ on a matrix, normal_fill on raw
// storage, and the tensor overload (one tensor of B * N * D elements).
template <class T>
constexpr bool every_form_draws_the_same() {
  sa::torch_generator g1{123}, g2{123}, g3{123}, g4{123};
  const auto m = sa::normal<T, 5, 8>(g1, T(0.5), T(2));
  sa::matrix<T, 5, 8> in_place;
  sa::normal_(in_place, g2, T(0.5), T(2));
  T raw[40]{};
  sa::normal_fill(g3, raw, 40, T(0.5), T(2));
  const auto t = sa::normal<T, 2, 4, 5>(g4, T(0.5), T(2));
  for (std::size_t k = 0; k < 40; ++k)
    if (!same_bits(in_place.elems[k], static_cast<double>(m.elems[k])) ||
        !same_bits(raw[k], static_cast<double>(m.elems[k])) || !same_bits(t.elems[k], static_cast<double>(m.elems[k])))
      return false;
  // ... and leave the generators in the same state.
  const std::uint32_t next = g1.random();
  return g2.random() == next && g3.random() == next && g4.random() == next;
}

// The chapter-4 GPT's first modules after torch.manual_seed(123): nn.Embedding(64, 16),
// nn.Embedding(8, 16), then nn.Linear(16, 48): normal and uniform draws on one generator.
template <class T>
constexpr bool gpt_init_order(const double (&tok)[64 * 16], const double (&pos)[8 * 16], const double (&w)[48 * 16],
                              const double (&b)[48]) {
  sa::torch_generator gen{123};
  const auto tok_emb = sa::normal<T, 64, 16>(gen);
  const auto pos_emb = sa::normal<T, 8, 16>(gen);
  const auto lin = sa::linear<T, 16, 48>(gen);
  return all_same_bits(tok_emb.elems, tok) && all_same_bits(pos_emb.elems, pos) && all_same_bits(lin.weight.elems, w) &&
         all_same_bits(lin.bias.elems, b);
}

// The 16-element kernels on chosen uniforms (torch's generator was set to draw them): u = 0
// (log 1 = 0, radius -0), the smallest and largest uniforms, log's near-1 boundaries, angles
// across [0, 2 pi) (in each of glibc's sincos branches).
constexpr bool float_kernel_on_edge_uniforms() {
  float block[16]{};
  for (std::size_t i = 0; i < 16; ++i) block[i] = static_cast<float>(ref::edge_f32_in[i]) * 0x1p-24f;
  tn::box_muller_16(block, 0.0f, 1.0f, std::make_index_sequence<8>{});
  return all_same_bits(block, ref::edge_f32_out);
}

constexpr bool double_kernel_on_edge_uniforms() {
  double block[16]{};
  for (std::size_t i = 0; i < 16; ++i) block[i] = static_cast<double>(ref::edge_f64_in[i]) * 0x1p-53;
  tn::box_muller_16(block, 0.0, 1.0, std::make_index_sequence<8>{});
  return all_same_bits(block, ref::edge_f64_out);
}

// Arm's log (glibc's, which the double kernels call) against libm.so.6 itself.
constexpr bool arm_log_matches_libm() {
  for (std::size_t i = 0; i < std::size(ref::glibc_log_in); ++i)
    if (!same_bits(tn::arm_log(ref::glibc_log_in[i]), ref::glibc_log_out[i])) return false;
  return true;
}

// The correctly rounded sincos against libm.so.6's on arguments across [0, 2 pi].
constexpr bool sincos_matches_libm() {
  for (std::size_t i = 0; i < std::size(ref::glibc_sincos_in); ++i) {
    const tn::sin_cos_d sc = tn::sincos_0_2pi(ref::glibc_sincos_in[i]);
    if (!same_bits(sc.sin, ref::glibc_sin_out[i]) || !same_bits(sc.cos, ref::glibc_cos_out[i])) return false;
  }
  return true;
}

// Square roots are correctly rounded in both worlds (the constant evaluator's Newton iteration
// and rounding test against the instruction at run time), including +-0 and powers of two.
constexpr bool square_roots_are_correctly_rounded() {
  return std::bit_cast<std::uint32_t>(tn::sqrt_f(-0.0f)) == 0x8000'0000U && tn::sqrt_f(4.0f) == 2.0f &&
         tn::sqrt_f(2.0f) == 0x1.6a09e6p+0f && tn::sqrt_f(0x1.fffffep+127f) == 0x1.fffffep+63f &&
         tn::sqrt_f(0x1p-149f) == 0x1.6a09e6p-75f && std::bit_cast<std::uint64_t>(tn::sqrt_d(-0.0)) == (1ULL << 63) &&
         tn::sqrt_d(2.0) == 0x1.6a09e667f3bcdp+0 && tn::sqrt_d(0x1p-1000) == 0x1p-500 &&
         tn::sqrt_d(0x1.fffffffffffffp+0) == 0x1.6a09e667f3bccp+0 && tn::sqrt_d(75.0) == 0x1.1520cd1372febp+3;
}

// The exact fused multiply-adds: one rounding, where two would differ.
constexpr bool fused_rounds_once() {
  // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly; rounding the product first loses the 2^-24.
  const float f = tn::fused(1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -1.0f).value;
  // (2^-24 + 2^-40)(1 - 2^-16) + (1 + 2^-23) = 1 + 2^-23 + 2^-24 - 2^-56: just below the midpoint
  // between two floats, but its rounding to double is the midpoint, whose even neighbour is the
  // float above; the single rounding goes down.
  const float a = 0x1p-24f + 0x1p-40f, b = 1.0f - 0x1p-16f, c = 1.0f + 0x1p-23f;
  const bool double_rounding_would_fail =
      static_cast<float>(static_cast<double>(a) * static_cast<double>(b) + static_cast<double>(c)) == 1.0f + 0x1p-22f;
  const double d = tn::fused(1.0 + 0x1p-30, 1.0 + 0x1p-30, -1.0).value;
  return f == 0x1p-11f + 0x1p-24f && double_rounding_would_fail && tn::fused(a, b, c).value == 1.0f + 0x1p-23f &&
         d == 0x1p-29 + 0x1p-60;
}

}  // namespace

TEST_CASE("normal<float>: equals torch.empty(n).normal_() for n from 1 to 1029, three seeds") {
  SA_CHECK_BOTH(float_sizes_seed_0());
  SA_CHECK_BOTH(float_sizes_seed_123());
  SA_CHECK_BOTH(float_sizes_seed_789());
}

TEST_CASE("normal<double>: equals torch.empty(n, dtype=float64).normal_() for n from 1 to 1029, three seeds") {
  SA_CHECK_BOTH(double_sizes_seed_0());
  SA_CHECK_BOTH(double_sizes_seed_123());
  SA_CHECK_BOTH(double_sizes_seed_789());
}

TEST_CASE("normal: mean and std as torch applies them (one FMA), float and double") {
  SA_CHECK_BOTH(mean_and_std_match<float>());
  SA_CHECK_BOTH(mean_and_std_match<double>());
}

TEST_CASE("normal: the generator caches the second value of a pair for the next small call") {
  SA_CHECK_BOTH(cache_carries_across_calls<float>(0, ref::f32_0_calls));
  SA_CHECK_BOTH(cache_carries_across_calls<float>(123, ref::f32_123_calls));
  SA_CHECK_BOTH(cache_carries_across_calls<double>(0, ref::f64_0_calls));
  SA_CHECK_BOTH(cache_carries_across_calls<double>(123, ref::f64_123_calls));
  SA_CHECK_BOTH(reseeding_clears_the_cache<float>(ref::f32_123_1, ref::f32_123_2));
  SA_CHECK_BOTH(reseeding_clears_the_cache<double>(ref::f64_123_1, ref::f64_123_2));
  SA_CHECK_BOTH(copies_carry_the_cache());
}

TEST_CASE("normal: matrix, in-place, raw-storage and tensor forms draw the same values") {
  SA_CHECK_BOTH(every_form_draws_the_same<float>());
  SA_CHECK_BOTH(every_form_draws_the_same<double>());
}

TEST_CASE("normal: nn.Embedding, nn.Embedding, nn.Linear after seed 123 interleave as in torch") {
  SA_CHECK_BOTH(gpt_init_order<float>(ref::f32_gpt_init_tok, ref::f32_gpt_init_pos, ref::f32_gpt_init_linear_weight,
                                      ref::f32_gpt_init_linear_bias));
  SA_CHECK_BOTH(gpt_init_order<double>(ref::f64_gpt_init_tok, ref::f64_gpt_init_pos, ref::f64_gpt_init_linear_weight,
                                       ref::f64_gpt_init_linear_bias));
}

TEST_CASE("normal kernels: chosen uniforms give torch's values, including u = 0 and the branch edges") {
  SA_CHECK_BOTH(float_kernel_on_edge_uniforms());
  SA_CHECK_BOTH(double_kernel_on_edge_uniforms());
}

TEST_CASE("normal internals: log and sincos against libm.so.6, square roots, fused multiply-adds") {
  SA_CHECK_BOTH(arm_log_matches_libm());
  SA_CHECK_BOTH(sincos_matches_libm());
  SA_CHECK_BOTH(square_roots_are_correctly_rounded());
  SA_CHECK_BOTH(fused_rounds_once());
}
