// SPDX-License-Identifier: BSL-1.0
// certify_next_token on the FLOAT tiny GPT (vocab 64, context 8, emb 16, 2 heads, 2 layers,
// torch.manual_seed(123), prompt {5, 17, 42, 63}) with fresh error symbols (DeepZ), at run time:
// a radius is certified, and sampling the float forward pass over that ball (random points and
// vertices) finds no logit outside verify::bound and no change of the next token. Prints the
// radii of each domain and the smallest flipping perturbation a random search finds.
// 320 symbols a value: the bound holds about 4 MB at once, past the default 1 MiB stack budget,
// within the main thread's 8 MiB. The budget is raised for this program before any include.
#define STATIC_ATTENTION_STACK_LIMIT (6u << 20)
#include <array>
#include <cstddef>
#include <cstdint>

#include <doctest/doctest.h>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/torch_init.hpp>
#include <static_attention/verify.hpp>

namespace sa = static_attention;
namespace verify = sa::verify;

namespace {
inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
constexpr std::array<int, 4> prompt{5, 17, 42, 63};
// 64 input symbols, and 4 x 64 fresh ones for the errors of the four residual sums.
using fresh = verify::zonotope<0, verify::sound_policy, 256>;

const sa::gpt_model<float, tiny>& tiny_model() {
  static const sa::gpt_model<float, tiny> model = [] {
    sa::gpt_model<float, tiny> m;
    sa::torch_generator gen{123};
    sa::init_like_torch(m, gen);
    return m;
  }();
  return model;
}

struct sampler {
  std::uint64_t s = 0x9E3779B97F4A7C15u;
  float next() {  // uniform in [-1, 1]
    s = s * 6364136223846793005u + 1442695040888963407u;
    return static_cast<float>(static_cast<double>(s >> 40) / static_cast<double>(1u << 23) - 1.0);
  }
};

// The model's forward pass from perturbed input embeddings (the steps of gpt_model::operator()).
sa::matrix<float, 4, 64> logits_at(const sa::gpt_model<float, tiny>& m, const sa::matrix<float, 4, 16>& x0) {
  auto x = x0;
  for (const auto& block : m.trf_blocks) x = block(x);
  return m.head(m.final_norm(x));
}
// The certified radius with fresh symbols, computed once.
float fresh_radius() {
  static const float r = verify::certified_radius<fresh>(tiny_model(), prompt, 1.0f, 12);
  return r;
}

std::size_t last_argmax(const sa::matrix<float, 4, 64>& l) {
  std::size_t best = 0;
  for (std::size_t j = 1; j < 64; ++j)
    if (l(3, j) > l(3, best)) best = j;
  return best;
}
sa::matrix<float, 4, 16> perturbed(const sa::matrix<float, 4, 16>& x, float eps, sampler& g, bool vertex) {
  auto p = x;
  for (auto& v : p) {
    const float r = g.next();
    v += vertex ? (r < 0 ? -eps : eps) : eps * r;
  }
  return p;
}
}  // namespace

TEST_CASE("certify_next_token: the float tiny GPT at eps > 0, with fresh error symbols; sampling agrees") {
  const auto& model = tiny_model();
  const auto x = model.tok_emb(prompt) + model.pos_emb.template rows<4>();
  const auto base = logits_at(model, x);
  REQUIRE(last_argmax(base) == last_argmax(model(prompt)));
  const float r = fresh_radius();
  const float r_ibp = verify::certified_radius<verify::ibp>(model, prompt);
  const float r_zono = verify::certified_radius(model, prompt);
  MESSAGE("float tiny GPT certified radius: ibp " << r_ibp << ", zonotope " << r_zono << ", fresh symbols " << r);
  REQUIRE(r > 0);
  CHECK(verify::certify_next_token<fresh>(model, prompt, r));
  const auto b = verify::bound<fresh>(model, prompt, r);
  sampler g;
  std::size_t escaped = 0, flipped = 0;
  for (std::size_t s = 0; s < 8000; ++s) {
    const auto l = logits_at(model, perturbed(x, r, g, s % 2 == 1));
    if (!b.contains(l)) ++escaped;
    if (last_argmax(l) != last_argmax(base)) ++flipped;
  }
  CHECK(b.contains(base));
  CHECK(escaped == 0);
  CHECK(flipped == 0);
}

TEST_CASE("the smallest flipping perturbation a random search finds is above the certified radius") {
  const auto& model = tiny_model();
  const auto x = model.tok_emb(prompt) + model.pos_emb.template rows<4>();
  const std::size_t best = last_argmax(logits_at(model, x));
  // Random vertex directions, each bisected for the smallest flipping scale.
  sampler g{42};
  float smallest = 1e30f;
  for (int d = 0; d < 100; ++d) {
    sa::matrix<float, 4, 16> dir;
    for (auto& v : dir) v = g.next() < 0 ? -1.0f : 1.0f;
    const auto flips = [&](float eps) { return last_argmax(logits_at(model, x + eps * dir)) != best; };
    if (!flips(4.0f)) continue;
    float lo = 0, hi = 4.0f;
    for (int k = 0; k < 30; ++k) (flips((lo + hi) / 2) ? hi : lo) = (lo + hi) / 2;
    smallest = hi < smallest ? hi : smallest;
  }
  const float r = fresh_radius();
  MESSAGE("smallest flip found (l-inf): " << smallest << ", certified " << r << ", ratio " << r / smallest);
  CHECK(smallest > r);
}
