// SPDX-License-Identifier: BSL-1.0
// docs/tutorial.md, part 3: causal attention (the chapter's 3.5): the two masking routes,
// dropout, a batch, and the context length.
#include <iostream>
#include <limits>
#include <static_attention/core/random.hpp>
#include <static_attention/io/print.hpp>
#include <static_attention/static_attention.hpp>
#include <type_traits>

#include "tutorial.hpp"

namespace sa = static_attention;

constexpr sa::matrix<float, 6, 3> inputs{{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f},
                                         {0.22f, 0.58f, 0.33f}, {0.77f, 0.25f, 0.10f}, {0.05f, 0.80f, 0.55f}};

// SelfAttention_v2's weights, as in part 2: torch.manual_seed(789), three nn.Linear(3, 2).
constexpr auto sa_v2 = [] {
  sa::torch_generator gen{789};
  const auto W_query = sa::linear_weight<float, 3, 2>(gen);
  const auto W_key = sa::linear_weight<float, 3, 2>(gen);
  const auto W_value = sa::linear_weight<float, 3, 2>(gen);
  return sa::self_attention<float, 3, 2>::from_linear(W_query, W_key, W_value);
}();

// [snippet:weights]
constexpr auto queries = sa::matmul(inputs, sa_v2.W_query);
constexpr auto keys = sa::matmul(inputs, sa_v2.W_key);
constexpr auto attn_scores = sa::matmul(queries, sa::transpose(keys));
constexpr auto attn_weights = sa::softmax(attn_scores / sa::sqrt(2.0f));  // d_k = 2
static_assert(attn_weights == sa_v2.attention_weights(inputs));
// [/snippet]
void print_weights() { std::cout << attn_weights << '\n'; }

// [snippet:route1]
// Route 1: zero the weights above the diagonal, then renormalise every row.
constexpr auto mask_simple = sa::tril(sa::ones<float, 6, 6>());
constexpr auto masked_simple = attn_weights * mask_simple;  // `*` is element-wise, as in PyTorch
// PyTorch broadcasts the 6 x 1 row sums over the columns; here the broadcast is spelled out:
// (6 x 1) . (1 x 6) repeats each row's sum across its row.
constexpr auto row_sums = sa::matmul(sa::sum(masked_simple), sa::ones<float, 1, 6>());
constexpr auto masked_simple_norm = masked_simple / row_sums;
// [/snippet]
void print_route1() { std::cout << mask_simple << '\n' << masked_simple << '\n' << masked_simple_norm << '\n'; }

// [snippet:route2]
// Route 2: -inf above the diagonal before the softmax, which turns it into exactly 0.
constexpr float inf = std::numeric_limits<float>::infinity();
constexpr auto masked = sa::masked_fill(attn_scores, sa::causal_mask<6>(), -inf);
static_assert(masked == sa::mask_future(attn_scores));  // the same, in one call
constexpr auto causal_weights = sa::softmax(masked / sa::sqrt(2.0f));
static_assert(causal_weights(1, 2) == 0.0f);  // exactly 0, not merely small
static_assert(sa::approx_equal(causal_weights, masked_simple_norm, 1e-6f), "the two routes agree");
// [/snippet]
void print_route2() { std::cout << masked << '\n' << causal_weights << '\n'; }

// [snippet:dropout]
// Dropout with p = 0.5 zeroes about half the entries and doubles the others. The mask comes
// from the generator, so one seed gives one mask, at compile time as at run time.
constexpr auto dropped = [] {
  sa::torch_generator gen{123};
  return sa::dropout(sa::ones<float, 6, 6>(), 0.5f, gen);
}();
// [/snippet]
void print_dropout() { std::cout << dropped << '\n'; }

// [snippet:batch]
// Two copies of the inputs as one batch: torch.stack((inputs, inputs), dim=0), 2 x 6 x 3.
constexpr auto batch = sa::stack(inputs, inputs);
static_assert(std::is_same_v<decltype(batch), const sa::tensor<float, 2, 6, 3>>);

// CausalAttention(d_in=3, d_out=2, context_length=6, dropout=0.0) after torch.manual_seed(123).
constexpr auto ca = [] {
  sa::torch_generator gen{123};
  const auto W_query = sa::linear_weight<float, 3, 2>(gen);
  const auto W_key = sa::linear_weight<float, 3, 2>(gen);
  const auto W_value = sa::linear_weight<float, 3, 2>(gen);
  return sa::causal_attention<float, 3, 2, /*context_length=*/6>::from_linear(W_query, W_key, W_value);
}();
constexpr auto context_vecs = ca(batch);  // 2 x 6 x 2
// A 7-token input would not compile: the context length is part of the type.
// [/snippet]
void print_batch() { std::cout << context_vecs << '\n'; }

// [snippet:training]
// Training mode: ca(x, gen) drops attention weights with the module's probability; ca(x) never does.
constexpr auto ca_train = sa::causal_attention<float, 3, 2, 6>{ca.W_query, ca.W_key, ca.W_value, /*dropout=*/0.5f};
constexpr auto trained = [] {
  sa::torch_generator gen{123};
  return ca_train(batch, gen);
}();
static_assert(ca_train(batch) == context_vecs);  // evaluation mode: no dropout
// [/snippet]
void print_training() { std::cout << trained << '\n'; }

int main(int argc, char** argv) {
  const tutorial_section sections[] = {{"weights", print_weights}, {"route1", print_route1},
                                       {"route2", print_route2},   {"dropout", print_dropout},
                                       {"batch", print_batch},     {"training", print_training}};
  return run_sections(argc, argv, sections);
}
