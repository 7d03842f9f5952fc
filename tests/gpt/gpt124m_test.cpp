// SPDX-License-Identifier: BSL-1.0
// GPT-2 124M (the book's GPT_CONFIG_124M) at run time: initialised as torch.manual_seed(123);
// GPTModel(cfg) does, it generates the book's ids for "Hello, I am", and its logits for the
// book's batch are torch's within 1e-4. The model lives in static storage (about 650 MB of .bss).
#include <array>
#include <cmath>
#include <cstddef>

#include <boost/hana/at.hpp>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>

#include <doctest/doctest.h>

#include "gpt_reference.hpp"
#include "gpt_test_support.hpp"

namespace sa = static_attention;
namespace ref = reference::gpt;

namespace {

using gpt2 = sa::gpt_model<float, sa::gpt2_124m>;

const gpt2& model() {
  static gpt2 m;  // zero-initialised: .bss, not 650 MB of initialised data
  static const bool ready = [] {
    sa::torch_generator gen{123};
    sa::init_like_torch(m, gen);
    return true;
  }();
  (void)ready;
  return m;
}

}  // namespace

TEST_CASE("GPT-2 124M: the initial weights are torch's draws") {
  const gpt2& m = model();
  const auto& block0 = boost::hana::at_c<0>(m.trf_blocks);
  for (std::size_t k = 0; k < 8; ++k) {
    CHECK(m.tok_emb.weight.elems[k] == static_cast<float>(ref::gpt124m_tok_emb_weight_first8[k]));
    CHECK(m.pos_emb.weight.elems[k] == static_cast<float>(ref::gpt124m_pos_emb_weight_first8[k]));
    CHECK(block0.att.W_query(k, 0) == static_cast<float>(ref::gpt124m_trf_blocks_0_att_W_query_weight_first8[k]));
    CHECK(m.out_head(k, 0) == static_cast<float>(ref::gpt124m_out_head_weight_first8[k]));
    CHECK(m.out_head(760 + k, 50256) == static_cast<float>(ref::gpt124m_out_head_weight_last8[k]));
  }
}

TEST_CASE("GPT-2 124M: generate_text_simple continues \"Hello, I am\" with the book's ids") {
  const std::array<int, 4> hello{15496, 11, 314, 716};
  CHECK(gpt_test::same_ids(sa::generate_text_simple<6>(model(), hello), ref::gpt124m_generated));
}

TEST_CASE("GPT-2 124M: logits of the book's batch are torch's within 1e-4") {
  sa::matrix<int, 2, 4> batch;
  for (std::size_t k = 0; k < 8; ++k) batch.elems[k] = ref::gpt124m_batch[k];
  static const auto logits = model()(batch);  // 1.6 MB: static, not on the stack
  for (std::size_t p = 0; p < 8; ++p) {
    const float* row = logits.elems + p * 50257;
    double sum = 0;
    std::size_t best = 0;
    for (std::size_t v = 0; v < 50257; ++v) {
      sum += row[v];
      if (row[v] > row[best]) best = v;
    }
    CHECK(best == static_cast<std::size_t>(ref::gpt124m_argmax[p]));
    CHECK(std::abs(sum - ref::gpt124m_logits_row_sum[p]) < 1e-4 * 50257);
    for (std::size_t s = 0; s < ref::gpt124m_sample_count; ++s) {
      const double expected = ref::gpt124m_logits_sample[p * ref::gpt124m_sample_count + s];
      CHECK(std::abs(row[ref::gpt124m_sample_index[s]] - expected) <= 1e-4);
    }
  }
}
