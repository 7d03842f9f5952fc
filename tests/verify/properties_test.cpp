// SPDX-License-Identifier: BSL-1.0
// verify::causal and verify::certify_next_token on the tiny GPT (vocab 64, context 8, emb 16,
// 2 heads, 2 layers, torch.manual_seed(123)): the same checks inside static_assert and at run
// time (the constexpr test pattern).
#include <array>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/verify.hpp>

#include "constexpr_check.hpp"

namespace sa = static_attention;
namespace verify = sa::verify;

namespace {
inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
inline constexpr std::array<int, 4> prompt{5, 17, 42, 63};

template <class T>
constexpr sa::gpt_model<T, tiny> make_model() {
  sa::gpt_model<T, tiny> model;
  sa::torch_generator gen{123};
  sa::init_like_torch(model, gen);
  return model;
}
template <class T>
inline constexpr auto model = make_model<T>();

constexpr bool tiny_gpt_is_causal() { return verify::causal(model<float>); }
constexpr bool self_attention_is_not_causal() {
  sa::self_attention<float, 4, 4> att;
  return !verify::causal(att);
}
constexpr bool causal_modules_are_causal() {
  sa::causal_attention<float, 4, 4> ca;
  sa::multi_head_attention<float, 4, 4, 2> mha;
  sa::transformer_block<float, 4, 2> block;
  return verify::causal(ca) && verify::causal(mha) && verify::causal(block);
}
// Intervals certify a tiny radius of the double model (what fits a static_assert).
constexpr bool certifies_small_eps() { return verify::certify_next_token<verify::ibp>(model<double>, prompt, 1e-8); }
}  // namespace

TEST_CASE("causal: a proof for the tiny GPT and the causal modules, false for self_attention") {
  SA_CHECK_BOTH(tiny_gpt_is_causal());
  SA_CHECK_BOTH(self_attention_is_not_causal());
  SA_CHECK_BOTH(causal_modules_are_causal());
}

TEST_CASE("certify_next_token: a small eps of the double tiny GPT") {
  SA_CHECK_BOTH(certifies_small_eps());  // under both compilers' default constexpr limits
}

TEST_CASE("certify_next_token: not at a large eps; the radius of zonotopes exceeds 100x that of intervals") {
  CHECK(!verify::certify_next_token(model<double>, prompt, 0.5));
  const double r_ibp = verify::certified_radius<verify::ibp>(model<double>, prompt);
  const double r_zono = verify::certified_radius(model<double>, prompt);
  MESSAGE("certified radius: ibp " << r_ibp << ", zonotope " << r_zono);
  CHECK(r_ibp > 0);
  CHECK(r_zono >= 100 * r_ibp);
  CHECK(verify::certify_next_token(model<double>, prompt, r_zono));
}
