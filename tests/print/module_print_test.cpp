// SPDX-License-Identifier: BSL-1.0
// Run-time truth: io/module_print.hpp prints the book's modules as torch 1.13 prints them, and
// parameter_count counts their parameters as `sum(p.numel() for p in m.parameters())` does
// (print_rank_reference.hpp, written by tests/reference/gen_book_print_reference.py from the
// book's classes with emb_dim 8, 2 heads, qkv_bias and drop_rate 0.25).
#include <doctest/doctest.h>

#include <sstream>
#include <static_attention/io/module_print.hpp>
#include <static_attention/nn/gpt.hpp>
#include <string>

#include "print_rank_reference.hpp"

namespace {

namespace sa = static_attention;
namespace ref = reference::print_rank;

using block_8 = sa::transformer_block<float, 8, 2, 6, true>;

template <class M>
std::string streamed(const M& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

TEST_CASE("modules print their torch repr tree") {
  block_8 block{};
  block.drop_rate = 0.25f;
  block.att.dropout_p = 0.25f;
  CHECK(streamed(block) == ref::block_8_repr);
  CHECK(streamed(block.att) == ref::attention_8_repr);
  CHECK(streamed(block.ff) == ref::feed_forward_8_repr);
  CHECK(streamed(block.norm1) == ref::layer_norm_8_repr);
  CHECK(sa::to_string(sa::linear_layer<float, 5, 6>{}) == ref::linear_5_6_repr);
  CHECK(sa::to_string(sa::linear_layer<float, 5, 6, false>{}) == ref::linear_5_6_no_bias_repr);
  CHECK(streamed(sa::embedding<float, 10, 8>{}) == ref::embedding_10_8_repr);
}

// The book's GPTModel with vocab 10, context 6, emb 8, 2 heads, 2 layers, qkv_bias, drop 0.25.
inline constexpr sa::gpt_config tiny{10, 6, 8, 2, 2, true};

TEST_CASE("a GPT prints its torch repr tree") {
  static sa::gpt_model<float, tiny> model{};
  model.set_drop_rate(0.25f);
  CHECK(streamed(model) == ref::gpt_tiny_repr);
}

// Type-level truth: the counts come from the types alone.
static_assert(sa::parameter_count<block_8>() == ref::block_8_parameters);
static_assert(sa::parameter_count<decltype(block_8::att)>() == ref::attention_8_parameters);
static_assert(sa::parameter_count<decltype(block_8::ff)>() == ref::feed_forward_8_parameters);
static_assert(sa::parameter_count<sa::linear_layer<float, 5, 6>>() == ref::linear_5_6_parameters);
static_assert(sa::parameter_count<decltype(block_8::norm1)>() == ref::layer_norm_8_parameters);
static_assert(sa::parameter_count<sa::linear_layer<float, 5, 6, false>>() == ref::linear_5_6_no_bias_parameters);
static_assert(sa::parameter_count<sa::embedding<float, 10, 8>>() == ref::embedding_10_8_parameters);
static_assert(sa::parameter_count<sa::gpt_model<float, tiny>>() == ref::gpt_tiny_parameters);
// GPTModel(GPT_CONFIG_124M): the book's "Total number of parameters: 163,009,536".
static_assert(sa::parameter_count<sa::gpt_model<float, sa::gpt2_124m>>() == 163'009'536);
TEST_CASE("parameter_count(m) of an object") { CHECK(sa::parameter_count(sa::layer_norm<float, 8>{}) == 16); }

}  // namespace
