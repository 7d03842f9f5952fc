// SPDX-License-Identifier: BSL-1.0
// Dropout masks as torch 1.13 draws them on the CPU without MKL (Debian's python3-torch): one
// 53-bit uniform per element, in row-major order over the whole tensor at each dropout call,
// a batch included. Checked against torch's own outputs (tests/reference/training_reference.hpp):
// nn.Dropout on matrices and rank-3 tensors (exactly, float and double, and where the generator
// is left), chapter 3's attention modules on a batch (constexpr and run time), chapter 4's
// TransformerBlock and GPTModel on a batch (run time).
#include <array>
#include <cmath>
#include <cstddef>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/causal_attention.hpp>
#include <static_attention/nn/dropout.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/multi_head_attention.hpp>
#include <static_attention/nn/transformer_block.hpp>

#include "constexpr_check.hpp"
#include "training_reference.hpp"

namespace sa = static_attention;
namespace ref = reference::training;

namespace {

template <class M, std::size_t Size>
constexpr M from(const double (&values)[Size]) {
  static_assert(Size == M::size);
  M m;
  for (std::size_t k = 0; k < Size; ++k) m.elems[k] = static_cast<sa::value_type_t<M>>(values[k]);
  return m;
}

template <class M, std::size_t Size>
constexpr bool same_bits(const M& got, const double (&expected)[Size]) {
  static_assert(Size == M::size);
  for (std::size_t k = 0; k < Size; ++k)
    if (got.elems[k] != static_cast<sa::value_type_t<M>>(expected[k])) return false;
  return true;
}

template <class M, std::size_t Size>
constexpr bool close(const M& got, const double (&expected)[Size], double tol) {
  static_assert(Size == M::size);
  for (std::size_t k = 0; k < Size; ++k) {
    const double d = static_cast<double>(got.elems[k]) - expected[k];
    if (!(d <= tol && -d <= tol)) return false;
  }
  return true;
}

// torch.rand(1) after the call: where the generator was left.
constexpr bool next_rand_is(sa::torch_generator& gen, double expected) {
  return static_cast<double>(sa::rand<float, 1, 1>(gen).elems[0]) == expected;
}

template <class M, std::size_t Size>
constexpr bool dropout_is_torchs(std::uint64_t seed, sa::value_type_t<M> p, const double (&in)[Size],
                                 const double (&out)[Size], double rand_after) {
  sa::torch_generator gen{seed};
  return same_bits(sa::dropout(from<M>(in), p, gen), out) && next_rand_is(gen, rand_after);
}

constexpr bool ones_6x6_half() {
  return dropout_is_torchs<sa::matrix<float, 6, 6>>(123, 0.5f, ref::dropout_ones6x6_p05_in,
                                                    ref::dropout_ones6x6_p05_out,
                                                    ref::dropout_ones6x6_p05_rand_after) &&
         dropout_is_torchs<sa::matrix<float, 6, 6>>(99, 0.3f, ref::dropout_ones6x6_p03_seed99_in,
                                                    ref::dropout_ones6x6_p03_seed99_out,
                                                    ref::dropout_ones6x6_p03_seed99_rand_after);
}

constexpr bool rank3_tensors() {
  using t = sa::tensor<float, 2, 3, 5>;
  return dropout_is_torchs<t>(7, 0.1f, ref::dropout_rank3_p01_in, ref::dropout_rank3_p01_out,
                              ref::dropout_rank3_p01_rand_after) &&
         dropout_is_torchs<t>(2024, 0.7f, ref::dropout_rank3_p07_in, ref::dropout_rank3_p07_out,
                              ref::dropout_rank3_p07_rand_after);
}

constexpr bool doubles() {
  return dropout_is_torchs<sa::matrix<double, 4, 4>>(
      5, 0.2, ref::dropout_double4x4_p02_in, ref::dropout_double4x4_p02_out, ref::dropout_double4x4_p02_rand_after);
}

constexpr bool p_zero_and_one_draw_nothing() {
  sa::torch_generator gen{3};
  const auto ones = sa::ones<float, 4, 4>();
  return sa::dropout(ones, 0.0f, gen) == ones && sa::dropout(ones, 1.0f, gen) == sa::zeros<float, 4, 4>() &&
         next_rand_is(gen, ref::dropout_p0_p1_rand_after);
}

// The chapter's inputs, twice: batch = torch.stack((inputs, inputs), dim=0).
constexpr sa::matrix<float, 6, 3> inputs{{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f},
                                         {0.22f, 0.58f, 0.33f}, {0.77f, 0.25f, 0.10f}, {0.05f, 0.80f, 0.55f}};
constexpr auto batch = sa::stack(inputs, inputs);

// torch.manual_seed(123); ca = CausalAttention(3, 2, 6, 0.5); ca(batch): the Linears' draws,
// then the batch's 2 x 6 x 6 weights' masks from the same generator.
constexpr bool causal_attention_batch() {
  sa::torch_generator gen{123};
  const auto wq = sa::linear_weight<float, 3, 2>(gen);
  const auto wk = sa::linear_weight<float, 3, 2>(gen);
  const auto wv = sa::linear_weight<float, 3, 2>(gen);
  const auto ca = sa::causal_attention<float, 3, 2, 6>::from_linear(wq, wk, wv, 0.5f);
  return close(ca(batch, gen), ref::causal_batch_out, 1e-6);
}

// torch.manual_seed(123); MultiHeadAttention(3, 4, 6, 0.5, num_heads=2)(batch): the masks of
// the (2, 2, 6, 6) weights, item, head, row, column.
constexpr bool multi_head_attention_batch() {
  sa::torch_generator gen{123};
  sa::multi_head_attention<float, 3, 4, 2, 6> mha;
  sa::init_like_torch(mha, gen);
  mha.dropout_p = 0.5f;
  return close(mha(batch, gen), ref::mha_batch_out, 1e-6);
}

}  // namespace

TEST_CASE("nn.Dropout(0.5) and (0.3) of ones(6, 6): torch's masks, and the generator left where torch leaves it") {
  SA_CHECK_BOTH(ones_6x6_half());
}
TEST_CASE("a rank-3 tensor is drawn whole, row-major, with torch's kept values (p = 0.1, 0.7)") {
  SA_CHECK_BOTH(rank3_tensors());
}
TEST_CASE("double tensors: torch's mask and 1 / (1 - p) in double") { SA_CHECK_BOTH(doubles()); }
TEST_CASE("p = 0 and p = 1 draw nothing, as torch") { SA_CHECK_BOTH(p_zero_and_one_draw_nothing()); }
TEST_CASE("CausalAttention(3, 2, 6, 0.5) on the chapter's batch in training mode: torch's output") {
  SA_CHECK_BOTH(causal_attention_batch());
}
TEST_CASE("MultiHeadAttention(3, 4, 6, 0.5, num_heads=2) on the batch in training mode: torch's output") {
  SA_CHECK_BOTH(multi_head_attention_batch());
}

namespace {
inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
}

TEST_CASE("TransformerBlock (emb 16, drop_rate 0.3) on a 2 x 5 x 16 batch in training mode: torch's output") {
  sa::torch_generator gen{123};
  sa::transformer_block<float, 16, 2, 8> block;
  sa::init_like_torch(block, gen);
  block.drop_rate = 0.3f;
  block.att.dropout_p = 0.3f;
  const auto x = sa::rand<float, 2, 5, 16>(gen);
  CHECK(close(block(x, gen), ref::block_batch_out, 1e-5));
}

TEST_CASE("GPTModel (tiny, drop_rate 0.1) on a 2 x 5 batch in training mode: torch's logits") {
  static sa::gpt_model<float, tiny> model;
  sa::torch_generator gen{123};
  sa::init_like_torch(model, gen);
  model.set_drop_rate(0.1f);
  sa::matrix<int, 2, 5> ids;
  for (std::size_t k = 0; k < 10; ++k) ids.elems[k] = ref::gpt_batch_ids[k];
  CHECK(close(model(ids, gen), ref::gpt_train_batch_out, 2e-5));
  CHECK(close(model(ids), ref::gpt_eval_batch_out, 2e-5));
}
