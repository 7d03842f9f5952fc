// SPDX-License-Identifier: BSL-1.0
// The chapter's GPT, small enough for the compiler: vocab 64, context 8, emb 16, 2 heads,
// 2 layers, initialised as torch.manual_seed(123); GPTModel(cfg) does, checked against torch's
// logits (1e-6 float, 1e-12 double) and torch's generated ids (exact), inside static_assert
// (default constexpr limits, GCC 12 and Clang 16) and again at run time. Also with qkv_bias and
// three heads, and a double model drawn as torch draws after set_default_dtype(float64).
#include <array>

#include <boost/hana/at.hpp>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>

#include "constexpr_check.hpp"
#include "gpt_reference.hpp"
#include "gpt_test_support.hpp"

namespace sa = static_attention;
namespace ref = reference::gpt;
using test_support::to_matrix;

namespace {

inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
inline constexpr sa::gpt_config tiny_bias3{64, 8, 18, 3, 2, true};
inline constexpr std::array<int, 4> prompt{5, 17, 42, 63};

template <class T, sa::gpt_config Cfg>
constexpr sa::gpt_model<T, Cfg> make_model() {
  sa::gpt_model<T, Cfg> model;
  sa::torch_generator gen{123};
  sa::init_like_torch(model, gen);
  return model;
}

// One model per configuration, each built in a constant evaluation of its own.
template <class T, sa::gpt_config Cfg>
inline constexpr auto model = make_model<T, Cfg>();

template <class T, sa::gpt_config Cfg>
constexpr bool init_matches_torch(const double (&tok)[8], const double (&pos)[8], const double (&wq)[8],
                                  const double (&ff0)[8], const double (&head_first)[8], const double (&head_last)[8]) {
  const auto& m = model<T, Cfg>;
  constexpr std::size_t d = Cfg.emb_dim;
  constexpr std::size_t v = Cfg.vocab_size;
  const auto& block0 = m.trf_blocks[0];
  for (std::size_t k = 0; k < 8; ++k) {
    // Linear weights are kept as x @ W: torch's row 0 is column 0 here.
    if (m.tok_emb.weight.elems[k] != static_cast<T>(tok[k]) || m.pos_emb.weight.elems[k] != static_cast<T>(pos[k]) ||
        block0.att.W_query(k, 0) != static_cast<T>(wq[k]) || block0.ff.expand.weight(k, 0) != static_cast<T>(ff0[k]) ||
        m.out_head(k, 0) != static_cast<T>(head_first[k]) ||
        m.out_head(d - 8 + k, v - 1) != static_cast<T>(head_last[k]))
      return false;
  }
  return m.final_norm.scale == sa::ones<T, 1, d>();
}

template <class T, sa::gpt_config Cfg>
constexpr bool logits_match_torch(const double (&expected)[4 * 64], double tol) {
  return gpt_test::close(model<T, Cfg>(prompt), to_matrix<T, 4, 64>(expected), tol);
}

template <class T, sa::gpt_config Cfg>
constexpr bool generates_torch_ids(const int (&expected)[8]) {
  return gpt_test::same_ids(sa::generate_text_simple<4>(model<T, Cfg>, prompt), expected);
}

}  // namespace

static_assert(sa::gpt_model<float, tiny>::parameter_count == ref::tiny_parameter_count);
static_assert(sa::gpt_model<float, tiny_bias3>::parameter_count == ref::tiny_bias3_parameter_count);
static_assert(sa::gpt_model<float, sa::gpt2_124m>::parameter_count == ref::gpt124m_parameter_count);
// With the output head tied to tok_emb, as GPT-2 does: the book's 124,412,160.
static_assert(sa::gpt_model<float, sa::gpt2_124m>::parameter_count - 50257 * 768 == 124'412'160);

TEST_CASE("tiny GPT: the initial weights are torch's draws") {
  SA_CHECK_BOTH(init_matches_torch<float, tiny>(ref::tiny_tok_emb_weight_first8, ref::tiny_pos_emb_weight_first8,
                                                ref::tiny_trf_blocks_0_att_W_query_weight_first8,
                                                ref::tiny_trf_blocks_0_ff_layers_0_weight_first8,
                                                ref::tiny_out_head_weight_first8, ref::tiny_out_head_weight_last8));
  SA_CHECK_BOTH(init_matches_torch<float, tiny_bias3>(
      ref::tiny_bias3_tok_emb_weight_first8, ref::tiny_bias3_pos_emb_weight_first8,
      ref::tiny_bias3_trf_blocks_0_att_W_query_weight_first8, ref::tiny_bias3_trf_blocks_0_ff_layers_0_weight_first8,
      ref::tiny_bias3_out_head_weight_first8, ref::tiny_bias3_out_head_weight_last8));
  SA_CHECK_BOTH(init_matches_torch<double, tiny>(
      ref::tiny_f64_tok_emb_weight_first8, ref::tiny_f64_pos_emb_weight_first8,
      ref::tiny_f64_trf_blocks_0_att_W_query_weight_first8, ref::tiny_f64_trf_blocks_0_ff_layers_0_weight_first8,
      ref::tiny_f64_out_head_weight_first8, ref::tiny_f64_out_head_weight_last8));
}

TEST_CASE("tiny GPT: logits are torch's") {
  SA_CHECK_BOTH(logits_match_torch<float, tiny>(ref::tiny_logits, 1e-6));
  SA_CHECK_BOTH(logits_match_torch<float, tiny_bias3>(ref::tiny_bias3_logits, 1e-6));
  SA_CHECK_BOTH(logits_match_torch<double, tiny>(ref::tiny_f64_logits, 1e-12));
}

TEST_CASE("tiny GPT: generate_text_simple gives torch's ids") {
  SA_CHECK_BOTH(generates_torch_ids<float, tiny>(ref::tiny_generated));
  SA_CHECK_BOTH(generates_torch_ids<float, tiny_bias3>(ref::tiny_bias3_generated));
  SA_CHECK_BOTH(generates_torch_ids<double, tiny>(ref::tiny_f64_generated));
}

TEST_CASE("tiny GPT: past the context length the window slides as the book crops") {
  // 4 prompt ids + 8 new ones: the last three steps see only the last 8 ids (run time only:
  // each slide reruns a whole window, more than Clang's default constexpr budget).
  CHECK(gpt_test::same_ids(sa::generate_text_simple<8>(model<float, tiny>, prompt), ref::tiny_generated_long));
  CHECK(gpt_test::same_ids(sa::generate_text_simple<8>(model<float, tiny_bias3>, prompt),
                           ref::tiny_bias3_generated_long));
  CHECK(gpt_test::same_ids(sa::generate_text_simple<8>(model<double, tiny>, prompt), ref::tiny_f64_generated_long));
}

TEST_CASE("tiny GPT: a batch gives each sequence's logits") {
  const sa::matrix<int, 2, 4> batch{{5, 17, 42, 63}, {5, 17, 42, 63}};
  const auto logits = model<float, tiny>(batch);
  CHECK(logits[0] == model<float, tiny>(prompt));
  CHECK(logits[1] == logits[0]);
}
