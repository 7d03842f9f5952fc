// SPDX-License-Identifier: BSL-1.0
// The book's model variants against torch 1.13 (tests/reference/training_reference.hpp):
// nn.Linear(5, 3, bias=False) (its draws, where it leaves the generator, its output), a GPTModel
// with no blocks, and one whose out_head shares tok_emb's weight (weight tying), each built as
// torch.manual_seed(123); GPTModel(cfg) builds it. Constexpr and run time where small.
#include <array>
#include <cstddef>
#include <type_traits>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/torch_init.hpp>

#include "constexpr_check.hpp"
#include "training_reference.hpp"

namespace sa = static_attention;
namespace ref = reference::training;

namespace {

template <class M, std::size_t Size>
constexpr bool close(const M& got, const double (&expected)[Size], double tol) {
  static_assert(Size == M::size);
  for (std::size_t k = 0; k < Size; ++k) {
    const double d = static_cast<double>(got.elems[k]) - expected[k];
    if (!(d <= tol && -d <= tol)) return false;
  }
  return true;
}

constexpr bool next_rand_is(sa::torch_generator& gen, double expected) {
  return static_cast<double>(sa::rand<float, 1, 1>(gen).elems[0]) == expected;
}

// --- nn.Linear(5, 3, bias=False) ------------------------------------------------------------

using no_bias_layer = sa::linear_layer<float, 5, 3, false>;
static_assert(!no_bias_layer::has_bias && sa::linear_layer<float, 5, 3>::has_bias);
static_assert(sizeof(no_bias_layer) == sizeof(sa::matrix<float, 5, 3>), "a bias-free layer stores no bias");

constexpr bool linear_without_bias() {
  sa::torch_generator gen{123};
  no_bias_layer layer{};
  sa::init_like_torch(layer, gen);
  // torch's weight is 3 x 5 (out x in), kept here as x @ W: 5 x 3.
  for (std::size_t o = 0; o < 3; ++o)
    for (std::size_t i = 0; i < 5; ++i)
      if (layer.weight(i, o) != static_cast<float>(ref::linear_no_bias_weight[o * 5 + i])) return false;
  constexpr sa::matrix<float, 1, 5> x{{0.5f, -1.0f, 2.0f, 0.25f, -0.75f}};
  sa::matrix<float, 3, 5> torch_weight;
  for (std::size_t k = 0; k < 15; ++k) torch_weight.elems[k] = static_cast<float>(ref::linear_no_bias_weight[k]);
  const auto from_linear = no_bias_layer::from_linear(torch_weight);
  return next_rand_is(gen, ref::linear_no_bias_rand_after) && close(layer(x), ref::linear_no_bias_out, 1e-6) &&
         from_linear.weight == layer.weight;
}

// --- GPTModel without blocks, and with weight tying -----------------------------------------

inline constexpr sa::gpt_config blockless{64, 8, 16, 2, 0, false};
inline constexpr sa::gpt_config tied{64, 8, 16, 2, 2, false, true};

static_assert(sa::gpt_model<float, blockless>::parameter_count == ref::gpt_blockless_parameter_count);
static_assert(sa::gpt_model<float, tied>::parameter_count == ref::gpt_tied_parameter_count);
static_assert(sa::gpt_model<float, tied>::parameter_count ==
              sa::gpt_model<float, sa::gpt_config{64, 8, 16, 2, 2, false}>::parameter_count - 64 * 16);
static_assert(sizeof(sa::gpt_model<float, tied>) < sizeof(sa::gpt_model<float, sa::gpt_config{64, 8, 16, 2, 2, false}>),
              "a tied out_head has no storage of its own");

template <sa::gpt_config Cfg>
constexpr sa::matrix<int, 2, 5> batch_ids() {
  sa::matrix<int, 2, 5> ids;
  for (std::size_t k = 0; k < 10; ++k) ids.elems[k] = ref::gpt_batch_ids[k];
  return ids;
}

constexpr bool blockless_gpt() {
  sa::gpt_model<float, blockless> model;
  sa::torch_generator gen{123};
  sa::init_like_torch(model, gen);
  if (!next_rand_is(gen, ref::gpt_blockless_rand_after)) return false;
  if (!close(model(batch_ids<blockless>()), ref::gpt_blockless_eval_out, 1e-5)) return false;
  // The cached path on a model without blocks: the positions still advance.
  sa::gpt_workspace<float, blockless, 8> ws;
  const std::array<int, 5> first{1, 5, 9, 62, 7};
  const auto rows = model.hidden(first, ws);
  return rows && ws.length() == 5 && *rows == model.hidden(first);
}

constexpr bool tied_gpt() {
  sa::gpt_model<float, tied> model;
  sa::torch_generator gen{123};
  sa::init_like_torch(model, gen);
  // The tied head reads tok_emb's rows: the bits of the product with the transposed weight.
  const auto h = model.hidden(std::array<int, 5>{1, 5, 9, 62, 7});
  return next_rand_is(gen, ref::gpt_tied_rand_after) && close(model(batch_ids<tied>()), ref::gpt_tied_eval_out, 1e-5) &&
         model.head(h) == sa::matmul(h, sa::transpose(model.tok_emb.weight));
}

}  // namespace

TEST_CASE("nn.Linear(5, 3, bias=False): torch's weight, no bias drawn, torch's output") {
  SA_CHECK_BOTH(linear_without_bias());
}
TEST_CASE("GPTModel with n_layers 0: torch's draws and logits; the workspace counts positions") {
  SA_CHECK_BOTH(blockless_gpt());
}
TEST_CASE("GPTModel with out_head.weight = tok_emb.weight: torch's draws, logits and parameter count") {
  SA_CHECK_BOTH(tied_gpt());
}
TEST_CASE("a tied GPT in training mode draws as torch's") {
  static sa::gpt_model<float, tied> model;
  sa::torch_generator init{123};
  sa::init_like_torch(model, init);
  model.set_drop_rate(0.1f);
  sa::torch_generator gen{5};
  CHECK(close(model(batch_ids<tied>(), gen), ref::gpt_tied_train_out, 2e-5));
  // generate (the KV-cache path) reads the tied head too: torch's generate_text_simple's ids.
  sa::gpt_workspace<float, tied, 8> ws;
  const auto ids = sa::generate<4>(model, std::array<int, 3>{5, 17, 42}, ws);
  REQUIRE(ids.has_value());
  for (std::size_t k = 0; k < 7; ++k) CHECK((*ids)[k] == ref::gpt_tied_generated[k]);
}
