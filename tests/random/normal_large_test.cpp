// SPDX-License-Identifier: BSL-1.0
// normal_fill on large tensors in static storage (run time only): GPT-2's token embedding
// (50257 x 768 floats, as nn.Embedding(50257, 768) draws it after torch.manual_seed(123)) and a
// million doubles and floats with a 3-element tail, against sampled elements of torch's.
#include <static_attention/core/random.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <doctest/doctest.h>

#include "normal_reference.hpp"

namespace sa = static_attention;
namespace ref = reference::normal;

namespace {

template <class T>
bool same_bits(T got, double expected) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<std::uint32_t>(got) == std::bit_cast<std::uint32_t>(static_cast<float>(expected));
  } else {
    return std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(expected);
  }
}

// Elements [at, at + 16) against expected.
template <class T>
void check_sample(const T* data, std::size_t at, const double (&expected)[16]) {
  for (std::size_t i = 0; i < 16; ++i) {
    INFO("element " << at + i << ": got " << static_cast<double>(data[at + i]) << ", torch " << expected[i]);
    CHECK(same_bits(data[at + i], expected[i]));
  }
}

template <class T, std::size_t N>
void check_large(T (&data)[N], std::uint64_t seed, double mean, double std_dev, const double (&first)[16],
                 const double (&middle)[16], const double (&end)[16], const double (&last)[16]) {
  sa::torch_generator gen{seed};
  sa::normal_fill(gen, data, N, static_cast<T>(mean), static_cast<T>(std_dev));
  check_sample(data, 0, first);
  check_sample(data, N / 2, middle);
  check_sample(data, N - 48, end);
  check_sample(data, N - 16, last);
}

float gpt2_wte[ref::f32_123_large_size];  // 154 MB, zero-initialised storage: no copy, no stack
double million_doubles[ref::f64_789_large_size];
float million_floats[ref::f32_5_large_size];

}  // namespace

TEST_CASE("normal_fill: GPT-2's 50257 x 768 token embedding after seed 123, sampled") {
  check_large(gpt2_wte, 123, ref::f32_123_large_mean, ref::f32_123_large_std, ref::f32_123_large_first,
              ref::f32_123_large_middle, ref::f32_123_large_end, ref::f32_123_large_last);
}

TEST_CASE("normal_fill: 1,000,003 doubles, 1,000,003 floats with mean 0.1 and std 0.02, sampled") {
  check_large(million_doubles, 789, ref::f64_789_large_mean, ref::f64_789_large_std, ref::f64_789_large_first,
              ref::f64_789_large_middle, ref::f64_789_large_end, ref::f64_789_large_last);
  check_large(million_floats, 5, ref::f32_5_large_mean, ref::f32_5_large_std, ref::f32_5_large_first,
              ref::f32_5_large_middle, ref::f32_5_large_end, ref::f32_5_large_last);
}
