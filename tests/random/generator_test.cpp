// SPDX-License-Identifier: BSL-1.0
// torch_generator, rand and uniform against PyTorch 1.13's draws (constexpr and run time).
#include <static_attention/core/random.hpp>

#include <cstdint>
#include <type_traits>

#include "constexpr_check.hpp"
#include "random_reference.hpp"
#include "reference_support.hpp"

namespace sa = static_attention;
namespace ref = reference::random;
using test_support::to_matrix;
using test_support::to_tensor;

namespace {

template <std::size_t N>
constexpr bool raw_draws_match(std::uint64_t seed, const std::uint32_t (&expected)[N]) {
  sa::torch_generator gen{seed};
  for (const std::uint32_t e : expected)
    if (gen.random() != e) return false;
  return true;
}

constexpr bool raw_draws_match_torch() {
  return raw_draws_match(0, ref::raw_0) && raw_draws_match(1, ref::raw_1) && raw_draws_match(5, ref::raw_5) &&
         raw_draws_match(123, ref::raw_123) && raw_draws_match(789, ref::raw_789) &&
         raw_draws_match(0x1'0000'0005ULL, ref::raw_2p32_5) && raw_draws_match(~std::uint64_t{0}, ref::raw_max);
}

// Only the low 32 bits of the seed matter, as in torch.manual_seed.
constexpr bool seed_is_truncated_to_32_bits() {
  sa::torch_generator a{5};
  sa::torch_generator b{0x1'0000'0005ULL};
  sa::torch_generator c{6};
  return a.random() == b.random() && a.random() != c.random();
}

constexpr bool random64_puts_first_draw_high() {
  sa::torch_generator gen{123};
  for (const std::uint64_t e : ref::random64_123)
    if (gen.random64() != e) return false;
  return true;
}

// A copy continues the same stream independently of the original.
constexpr bool copy_forks_the_stream() {
  sa::torch_generator a{789};
  a.random();
  sa::torch_generator b = a;
  const std::uint32_t first = a.random();
  a.random();
  return b.random() == first && b.random() == ref::raw_789[2] && a.random() == ref::raw_789[3];
}

template <class T, std::size_t R, std::size_t C>
constexpr bool rand_matches(std::uint64_t seed, const double (&expected)[R * C]) {
  sa::torch_generator gen{seed};
  return sa::rand<T, R, C>(gen) == to_matrix<T, R, C>(expected);
}

template <class T>
constexpr bool rand_matches_torch_0() {
  if constexpr (std::is_same_v<T, float>) {
    return rand_matches<T, 3, 2>(0, ref::rand_f32_0_3x2) && rand_matches<T, 1, 1>(0, ref::rand_f32_0_1x1) &&
           rand_matches<T, 7, 5>(0, ref::rand_f32_0_7x5) && rand_matches<T, 6, 3>(0, ref::rand_f32_0_6x3);
  } else {
    return rand_matches<T, 3, 2>(0, ref::rand_f64_0_3x2) && rand_matches<T, 1, 1>(0, ref::rand_f64_0_1x1) &&
           rand_matches<T, 7, 5>(0, ref::rand_f64_0_7x5) && rand_matches<T, 6, 3>(0, ref::rand_f64_0_6x3);
  }
}

constexpr bool rand_float_matches_torch() {
  using T = float;
  return rand_matches_torch_0<T>() && rand_matches<T, 3, 2>(123, ref::rand_f32_123_3x2) &&
         rand_matches<T, 1, 1>(123, ref::rand_f32_123_1x1) && rand_matches<T, 7, 5>(123, ref::rand_f32_123_7x5) &&
         rand_matches<T, 6, 3>(123, ref::rand_f32_123_6x3) && rand_matches<T, 3, 2>(789, ref::rand_f32_789_3x2) &&
         rand_matches<T, 1, 1>(789, ref::rand_f32_789_1x1) && rand_matches<T, 7, 5>(789, ref::rand_f32_789_7x5) &&
         rand_matches<T, 6, 3>(789, ref::rand_f32_789_6x3) && rand_matches<T, 3, 2>(2024, ref::rand_f32_2024_3x2) &&
         rand_matches<T, 1, 1>(2024, ref::rand_f32_2024_1x1) && rand_matches<T, 7, 5>(2024, ref::rand_f32_2024_7x5) &&
         rand_matches<T, 6, 3>(2024, ref::rand_f32_2024_6x3);
}

constexpr bool rand_double_matches_torch() {
  using T = double;
  return rand_matches_torch_0<T>() && rand_matches<T, 3, 2>(123, ref::rand_f64_123_3x2) &&
         rand_matches<T, 1, 1>(123, ref::rand_f64_123_1x1) && rand_matches<T, 7, 5>(123, ref::rand_f64_123_7x5) &&
         rand_matches<T, 6, 3>(123, ref::rand_f64_123_6x3) && rand_matches<T, 3, 2>(789, ref::rand_f64_789_3x2) &&
         rand_matches<T, 1, 1>(789, ref::rand_f64_789_1x1) && rand_matches<T, 7, 5>(789, ref::rand_f64_789_7x5) &&
         rand_matches<T, 6, 3>(789, ref::rand_f64_789_6x3) && rand_matches<T, 3, 2>(2024, ref::rand_f64_2024_3x2) &&
         rand_matches<T, 1, 1>(2024, ref::rand_f64_2024_1x1) && rand_matches<T, 7, 5>(2024, ref::rand_f64_2024_7x5) &&
         rand_matches<T, 6, 3>(2024, ref::rand_f64_2024_6x3);
}

// The chapter's SelfAttention_v1 draws three torch.rand(3, 2) in a row after seed 123; a
// tensor draw continues the same stream.
template <class T>
constexpr bool consecutive_draws_continue_the_stream(const double (&q)[6], const double (&k)[6], const double (&v)[6],
                                                     const double (&t)[24]) {
  sa::torch_generator gen{123};
  const auto w_query = sa::rand<T, 3, 2>(gen);
  const auto w_key = sa::rand<T, 3, 2>(gen);
  const auto w_value = sa::rand<T, 3, 2>(gen);
  const auto batch = sa::rand<T, 2, 3, 4>(gen);
  return w_query == to_matrix<T, 3, 2>(q) && w_key == to_matrix<T, 3, 2>(k) && w_value == to_matrix<T, 3, 2>(v) &&
         batch == to_tensor<T, 2, 3, 4>(t);
}

// The chapter prints W_query = [[0.2961, 0.5166], [0.2517, 0.6886], [0.0740, 0.8665]].
constexpr bool chapter_w_query_is_printed_value() {
  sa::torch_generator gen{123};
  const auto w_query = sa::rand<float, 3, 2>(gen);
  const sa::matrix<float, 3, 2> printed{{0.2961f, 0.5166f}, {0.2517f, 0.6886f}, {0.0740f, 0.8665f}};
  return sa::approx_equal(w_query, printed, 5e-5f);
}

template <class T>
constexpr bool uniform_matches(const double (&m)[24], const double (&t)[30]) {
  sa::torch_generator gen{5};
  const auto a = sa::uniform<T, 4, 6>(gen, static_cast<T>(-0.3), static_cast<T>(0.7));
  const auto b = sa::uniform<T, 2, 3, 5>(gen, T{2.0}, T{2.5});
  return a == to_matrix<T, 4, 6>(m) && b == to_tensor<T, 2, 3, 5>(t);
}

// The scalar uniform draws the same numbers, one at a time.
template <class T>
constexpr bool scalar_uniform_matches(const double (&m)[24]) {
  sa::torch_generator gen{5};
  for (const double e : m)
    if (sa::uniform(gen, static_cast<T>(-0.3), static_cast<T>(0.7)) != static_cast<T>(e)) return false;
  return true;
}

}  // namespace

TEST_CASE("torch_generator: raw 32-bit draws equal torch's MT19937 for seven seeds, across two twists") {
  SA_CHECK_BOTH(raw_draws_match_torch());
  SA_CHECK_BOTH(seed_is_truncated_to_32_bits());
}

TEST_CASE("torch_generator: random64 is (first << 32) | second, and copies fork the stream") {
  SA_CHECK_BOTH(random64_puts_first_draw_high());
  SA_CHECK_BOTH(copy_forks_the_stream());
}

TEST_CASE("rand<float>: equals torch.rand element for element") {
  SA_CHECK_BOTH(rand_float_matches_torch());
  SA_CHECK_BOTH(chapter_w_query_is_printed_value());
  SA_CHECK_BOTH(consecutive_draws_continue_the_stream<float>(ref::sequence_f32_123_q, ref::sequence_f32_123_k,
                                                             ref::sequence_f32_123_v, ref::sequence_f32_123_t));
}

TEST_CASE("rand<double>: equals torch.rand(dtype=torch.float64) element for element") {
  SA_CHECK_BOTH(rand_double_matches_torch());
  SA_CHECK_BOTH(consecutive_draws_continue_the_stream<double>(ref::sequence_f64_123_q, ref::sequence_f64_123_k,
                                                              ref::sequence_f64_123_v, ref::sequence_f64_123_t));
}

TEST_CASE("uniform: equals tensor.uniform_(from, to) in float and double, matrix, tensor and scalar") {
  SA_CHECK_BOTH(uniform_matches<float>(ref::uniform_f32_5_4x6, ref::uniform_f32_5_2x3x5));
  SA_CHECK_BOTH(uniform_matches<double>(ref::uniform_f64_5_4x6, ref::uniform_f64_5_2x3x5));
  SA_CHECK_BOTH(scalar_uniform_matches<float>(ref::uniform_f32_5_4x6));
  SA_CHECK_BOTH(scalar_uniform_matches<double>(ref::uniform_f64_5_4x6));
}
