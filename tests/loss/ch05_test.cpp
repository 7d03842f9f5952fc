// SPDX-License-Identifier: BSL-1.0
// Chapter 5's first measures for the untrained GPT-2 124M (context 256, torch seed 123, eval
// mode) on the chapter's two examples: target_probas, log_probas, the cross-entropy loss and the
// perplexity, against the digits the book's notebook printed (torch 2.9) and against torch 1.13
// on the CPU (ch05_reference.hpp). Run time only: GPT-2 124M does not fit a constant evaluation.
#include <array>
#include <cmath>
#include <cstddef>
#include <string>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/softmax.hpp>
#include <static_attention/nn/loss.hpp>

#include <doctest/doctest.h>

#include "ch05_reference.hpp"
#include "ch05_support.hpp"

namespace sa = static_attention;
namespace ref = reference::ch05;

namespace {

constexpr std::size_t vocab = ch05::gpt2_124m_256.vocab_size;

// The two examples' logits, 2 x 3 x 50257 (1.2 MB): computed once, kept in static storage.
const sa::tensor<float, 2, 3, vocab>& logits() {
  static const auto l = [] {
    sa::matrix<int, 2, 3> inputs;
    for (std::size_t k = 0; k < 6; ++k) inputs.elems[k] = ref::inputs[k];
    return ch05::model()(inputs);
  }();
  return l;
}

sa::matrix<int, 2, 3> targets() {
  sa::matrix<int, 2, 3> t;
  for (std::size_t k = 0; k < 6; ++k) t.elems[k] = ref::targets[k];
  return t;
}

// softmax(logits)[b, i, targets[b, i]], token by token (softmax runs over each row alone).
std::array<float, 6> target_probas() {
  std::array<float, 6> p{};
  for (std::size_t k = 0; k < 6; ++k) {
    sa::matrix<float, 1, vocab> row;
    for (std::size_t v = 0; v < vocab; ++v) row.elems[v] = logits().elems[k * vocab + v];
    p[k] = sa::softmax(row).elems[static_cast<std::size_t>(ref::targets[k])];
  }
  return p;
}

}  // namespace

TEST_CASE("ch05: target_probas are the notebook's to its last printed digit, and torch 1.13's within 1e-5 relative") {
  // The logits are torch's within about 1e-6 (their sums over 768 products run in another
  // order), so a probability can land on the other side of a fifth digit's rounding boundary:
  // the first, 7.45405e-05 in torch 1.13, prints 7.4541e-05 there and 7.4540e-05 here.
  const auto p = target_probas();
  int same = 0;
  for (std::size_t k = 0; k < 6; ++k) {
    CAPTURE(k);
    const double printed_unit = std::pow(10.0, std::floor(std::log10(ref::notebook_target_probas[k])) - 4);
    CHECK(std::abs(p[k] - ref::notebook_target_probas[k]) <= printed_unit);
    CHECK(std::abs(p[k] - ref::target_probas[k]) <= 1e-5 * ref::target_probas[k]);
    same += ch05::sci4(p[k]) == ch05::sci4(ref::notebook_target_probas[k]);
  }
  MESSAGE(same, " of 6 target_probas print the notebook's digits");
  CHECK(same >= 5);
}

TEST_CASE("ch05: log_probas print the notebook's digits (4 decimals)") {
  const auto p = target_probas();
  for (std::size_t k = 0; k < 6; ++k) {
    CAPTURE(k);
    const float lp = sa::log(p[k]);
    CHECK(ch05::fixed4(lp) == ch05::fixed4(ref::notebook_log_probas[k]));
    CHECK(std::abs(lp - ref::log_probas[k]) <= 2e-4);
  }
}

TEST_CASE("ch05: the loss prints tensor(10.7940), and the perplexity is the notebook's within its spread") {
  // [snippet:loss]
  const auto loss = sa::cross_entropy(logits(), targets());  // logits: 2 x 3 x 50257, targets: 2 x 3
  REQUIRE(loss);                                             // an id outside [0, 50257) would be an error value
  const float ppl = sa::perplexity(*loss);                   // torch.exp(loss)
  // [/snippet]
  MESSAGE("loss ", ch05::fixed4(*loss), " (", ch05::digits9(*loss), "), torch 1.13 ", ch05::digits9(ref::loss),
          "; perplexity ", ch05::fixed4(ppl), ", torch 1.13 ", ch05::fixed4(ref::perplexity), ", notebook ",
          ch05::fixed4(ref::notebook_perplexity));
  CHECK(ch05::fixed4(*loss) == ch05::fixed4(ref::notebook_loss));
  CHECK(std::abs(*loss - ref::loss) <= 2e-5);
  // perplexity = exp(loss): one ulp of the loss (9.5e-7 at 10.79) moves it by 0.046, so its
  // fourth decimal follows the loss's last bit, which the logits' order of additions decides.
  CHECK(std::abs(ppl - ref::perplexity) <= 2e-5 * ref::perplexity);
  CHECK(ch05::fixed4(ppl) == ch05::fixed4(ref::notebook_perplexity));  // tensor(48725.8203), today
  CHECK(std::abs(ppl - ref::notebook_perplexity) <= 2e-5 * ref::notebook_perplexity);
  // The book's route gives the same: the mean of the negated log_probas.
  const auto p = target_probas();
  double mean = 0;
  for (const float x : p) mean += sa::log(x);
  CHECK(std::abs(-mean / 6 - *loss) <= 2e-5);
}
