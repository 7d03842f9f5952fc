// SPDX-License-Identifier: BSL-1.0
// Run-time truth: sample_id draws torch 1.13's ids (top-k, temperature, softmax, multinomial or
// argmax), three successive draws from one generator per case, for vocabularies of 5 to 50257
// (every lane layout of torch's 8-lane sum), against sampling_reference.hpp.
#include <cstddef>
#include <optional>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/sampling.hpp>

#include <doctest/doctest.h>

#include "sampling_reference.hpp"

namespace sa = static_attention;
namespace rs = reference::sampling;

namespace {

template <std::size_t V, std::size_t N>
void check_draws(const rs::draw_case (&cases)[N]) {
  static sa::matrix<float, 1, V> logits;  // static: GPT-2's row is 200 KB
  for (const auto& c : cases) {
    sa::torch_generator logit_gen{c.logit_seed};
    logits = sa::normal<float, 1, V>(logit_gen);
    for (auto& x : logits.elems) x = x * static_cast<float>(c.scale);
    sa::torch_generator gen{c.seed};
    const sa::sampling s{c.temperature, c.top_k, std::nullopt};
    for (int d = 0; d < 3; ++d) {
      INFO("V = ", V, ", seed ", c.seed, ", temperature ", c.temperature, ", top_k ", c.top_k, ", draw ", d);
      CHECK(static_cast<int>(sa::sample_id(logits, s, gen)) == c.ids[d]);
    }
  }
}

}  // namespace

TEST_CASE("sample_id draws torch's ids: vocabularies of fewer than 8 (one partial lane set)") {
  check_draws<5>(rs::draws_v5);
}
TEST_CASE("sample_id draws torch's ids: 8, 13, 64 and 100 (whole and partial lane sets)") {
  check_draws<8>(rs::draws_v8);
  check_draws<13>(rs::draws_v13);
  check_draws<64>(rs::draws_v64);
  check_draws<100>(rs::draws_v100);
}
TEST_CASE("sample_id draws torch's ids: 1000 and GPT-2's 50257") {
  check_draws<1000>(rs::draws_v1000);
  check_draws<50257>(rs::draws_v50257);
}

TEST_CASE("temperature 0 draws nothing; top_k 1 keeps only the maximum") {
  sa::torch_generator logit_gen{5};
  const auto logits = sa::normal<float, 1, 64>(logit_gen);
  sa::torch_generator gen{1}, untouched{1};
  const auto greedy = sa::sample_id(logits, sa::sampling{}, gen);
  CHECK(gen.random() == untouched.random());  // no draw was taken
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    sa::torch_generator g{seed};
    CHECK(sa::sample_id(logits, sa::sampling{.temperature = 5.0, .top_k = 1, .eos_id = std::nullopt}, g) == greedy);
  }
}
