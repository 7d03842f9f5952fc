// SPDX-License-Identifier: BSL-1.0
// cross_entropy, log_softmax, perplexity and mse_loss against torch 1.13 on the CPU
// (loss_reference.hpp): the small cases in static_assert and at run time (the "constexpr test"
// pattern), every case at run time; targets outside the vocabulary as error values.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/loss.hpp>
#include <static_attention/nn/token_ids.hpp>

#include <doctest/doctest.h>

#include "constexpr_check.hpp"
#include "loss_reference.hpp"
#include "reference_support.hpp"

namespace sa = static_attention;
namespace ref = reference::loss;
using test_support::to_matrix;
using test_support::to_tensor;

namespace {

// |got - expected| <= ulps units in the last place of expected (of T).
template <class T>
constexpr bool within_ulps(T got, double expected, int ulps) {
  const T e = static_cast<T>(expected);
  if (got == e) return true;  // infinities included
  const T d = got > e ? got - e : e - got;
  const T mag = e < 0 ? -e : e;
  return d <= static_cast<T>(ulps) * std::numeric_limits<T>::epsilon() * (mag > 1 ? mag : T{1});
}

template <std::size_t N>
constexpr std::array<int, N> to_ids(const int (&values)[N]) {
  std::array<int, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = values[i];
  return a;
}

template <std::size_t B, std::size_t N>
constexpr sa::matrix<int, B, N> to_id_matrix(const int (&values)[B * N]) {
  sa::matrix<int, B, N> m;
  for (std::size_t k = 0; k < B * N; ++k) m.elems[k] = values[k];
  return m;
}

// cross_entropy, log_softmax and perplexity of one N x V case against torch's.
template <class T, std::size_t N, std::size_t V>
constexpr bool sequence_case(const double (&logits)[N * V], const int (&targets)[N], const double (&log_probs)[N * V],
                             double loss, double ppl, int ulps) {
  const auto x = to_matrix<T, N, V>(logits);
  const auto r = sa::cross_entropy(x, to_ids(targets));
  if (!r) return false;
  const auto lp = sa::log_softmax(x);
  for (std::size_t k = 0; k < N * V; ++k)
    if (!within_ulps(lp.elems[k], log_probs[k], ulps)) return false;
  // exp turns the loss's absolute error into the perplexity's relative one: |loss| times larger.
  const int ppl_ulps = ulps * (2 + static_cast<int>(loss < 0 ? -loss : loss));
  return within_ulps(*r, loss, ulps) && within_ulps(sa::perplexity(*r), ppl, ppl_ulps);
}

// The same, bit for bit: true when the loss is torch's to the last bit.
template <class T, std::size_t N, std::size_t V>
bool same_bits_loss(const double (&logits)[N * V], const int (&targets)[N], double loss) {
  const auto r = sa::cross_entropy(to_matrix<T, N, V>(logits), to_ids(targets));
  return r && *r == static_cast<T>(loss);
}

}  // namespace

TEST_CASE("cross_entropy: the chapter's toy cases in static_assert and at run time, within 2 ulps of torch") {
  SA_CHECK_BOTH(sequence_case<float, 3, 5>(ref::short_f32_logits, ref::short_f32_targets, ref::short_f32_log_softmax,
                                           ref::short_f32_loss, ref::short_f32_perplexity, 2));
  SA_CHECK_BOTH(sequence_case<double, 3, 5>(ref::short_f64_logits, ref::short_f64_targets, ref::short_f64_log_softmax,
                                            ref::short_f64_loss, ref::short_f64_perplexity, 2));
  SA_CHECK_BOTH(sequence_case<float, 6, 9>(ref::vocab9_f32_logits, ref::vocab9_f32_targets, ref::vocab9_f32_log_softmax,
                                           ref::vocab9_f32_loss, ref::vocab9_f32_perplexity, 2));
  SA_CHECK_BOTH(sequence_case<double, 5, 11>(ref::seq_f64_logits, ref::seq_f64_targets, ref::seq_f64_log_softmax,
                                             ref::seq_f64_loss, ref::seq_f64_perplexity, 2));
}

TEST_CASE("cross_entropy: hand-derived values") {
  // Equal logits: every token's loss is log(V).
  constexpr sa::matrix<double, 2, 4> flat{};
  static_assert(within_ulps(*sa::cross_entropy(flat, std::array<int, 2>{0, 3}), 1.3862943611198906 /* ln 4 */, 1));
  // One logit of +1000 among zeros: a stable log_softmax gives exactly 0 and -1000 (no overflow).
  constexpr sa::matrix<float, 1, 3> peaked{{0.0f, 1000.0f, 0.0f}};
  static_assert(*sa::cross_entropy(peaked, std::array<int, 1>{1}) == 0.0f);
  static_assert(*sa::cross_entropy(peaked, std::array<int, 1>{0}) == 1000.0f);
  // -inf at a target gives an infinite loss, as torch; elsewhere it contributes nothing.
  constexpr float inf = std::numeric_limits<float>::infinity();
  constexpr sa::matrix<float, 1, 2> masked{{-inf, 0.0f}};
  static_assert(*sa::cross_entropy(masked, std::array<int, 1>{1}) == 0.0f);
  static_assert(*sa::cross_entropy(masked, std::array<int, 1>{0}) == inf);
  static_assert(sa::perplexity(0.0) == 1.0);
  CHECK(std::isnan(*sa::cross_entropy(sa::matrix<float, 1, 2>{{std::nanf(""), 0.0f}}, std::array<int, 1>{1})));
}

TEST_CASE("cross_entropy: every sequence case within 2 ulps of torch (float and double)") {
  CHECK(sequence_case<float, 3, 5>(ref::short_f32_logits, ref::short_f32_targets, ref::short_f32_log_softmax,
                                   ref::short_f32_loss, ref::short_f32_perplexity, 2));
  CHECK(sequence_case<float, 5, 11>(ref::seq_f32_logits, ref::seq_f32_targets, ref::seq_f32_log_softmax,
                                    ref::seq_f32_loss, ref::seq_f32_perplexity, 2));
  CHECK(sequence_case<double, 5, 11>(ref::seq_f64_logits, ref::seq_f64_targets, ref::seq_f64_log_softmax,
                                     ref::seq_f64_loss, ref::seq_f64_perplexity, 2));
  CHECK(sequence_case<float, 3, 300>(ref::long_f32_logits, ref::long_f32_targets, ref::long_f32_log_softmax,
                                     ref::long_f32_loss, ref::long_f32_perplexity, 2));
  CHECK(sequence_case<double, 3, 300>(ref::long_f64_logits, ref::long_f64_targets, ref::long_f64_log_softmax,
                                      ref::long_f64_loss, ref::long_f64_perplexity, 2));
  CHECK(sequence_case<float, 4, 77>(ref::large_f32_logits, ref::large_f32_targets, ref::large_f32_log_softmax,
                                    ref::large_f32_loss, ref::large_f32_perplexity, 2));
  CHECK(sequence_case<double, 4, 77>(ref::large_f64_logits, ref::large_f64_targets, ref::large_f64_log_softmax,
                                     ref::large_f64_loss, ref::large_f64_perplexity, 2));
  CHECK(sequence_case<float, 6, 9>(ref::vocab9_f32_logits, ref::vocab9_f32_targets, ref::vocab9_f32_log_softmax,
                                   ref::vocab9_f32_loss, ref::vocab9_f32_perplexity, 2));
  CHECK(sequence_case<double, 6, 9>(ref::vocab9_f64_logits, ref::vocab9_f64_targets, ref::vocab9_f64_log_softmax,
                                    ref::vocab9_f64_loss, ref::vocab9_f64_perplexity, 2));
}

TEST_CASE("cross_entropy: torch's bits where only exp and log could differ") {
  // The order of additions is torch's, so the loss is torch's to the last bit unless the
  // library's exp or log rounds one value differently from SLEEF's: count the cases that agree.
  int same = 0;
  same += same_bits_loss<float, 3, 5>(ref::short_f32_logits, ref::short_f32_targets, ref::short_f32_loss);
  same += same_bits_loss<float, 5, 11>(ref::seq_f32_logits, ref::seq_f32_targets, ref::seq_f32_loss);
  same += same_bits_loss<float, 3, 300>(ref::long_f32_logits, ref::long_f32_targets, ref::long_f32_loss);
  same += same_bits_loss<float, 4, 77>(ref::large_f32_logits, ref::large_f32_targets, ref::large_f32_loss);
  same += same_bits_loss<float, 6, 9>(ref::vocab9_f32_logits, ref::vocab9_f32_targets, ref::vocab9_f32_loss);
  same += same_bits_loss<double, 3, 5>(ref::short_f64_logits, ref::short_f64_targets, ref::short_f64_loss);
  same += same_bits_loss<double, 5, 11>(ref::seq_f64_logits, ref::seq_f64_targets, ref::seq_f64_loss);
  same += same_bits_loss<double, 3, 300>(ref::long_f64_logits, ref::long_f64_targets, ref::long_f64_loss);
  same += same_bits_loss<double, 4, 77>(ref::large_f64_logits, ref::large_f64_targets, ref::large_f64_loss);
  same += same_bits_loss<double, 6, 9>(ref::vocab9_f64_logits, ref::vocab9_f64_targets, ref::vocab9_f64_loss);
  MESSAGE(same, " of 10 losses are torch's bits");
  CHECK(same >= 8);
}

TEST_CASE("cross_entropy: a batch is the mean over every token, as cross_entropy(logits.flatten(0, 1), ...)") {
  const auto batch = to_tensor<float, 2, 3, 37>(ref::batch_f32_logits);
  const auto targets = to_id_matrix<2, 3>(ref::batch_f32_targets);
  const auto r = sa::cross_entropy(batch, targets);
  REQUIRE(r);
  CHECK(within_ulps(*r, ref::batch_f32_loss, 2));
  static const auto long_batch = to_tensor<double, 2, 17, 100>(ref::batch_long_f64_logits);
  const auto r64 = sa::cross_entropy(long_batch, to_id_matrix<2, 17>(ref::batch_long_f64_targets));
  REQUIRE(r64);
  CHECK(within_ulps(*r64, ref::batch_long_f64_loss, 2));
  static const auto long_f32 = to_tensor<float, 2, 17, 100>(ref::batch_long_f32_logits);
  const auto r32 = sa::cross_entropy(long_f32, to_id_matrix<2, 17>(ref::batch_long_f32_targets));
  REQUIRE(r32);
  CHECK(within_ulps(*r32, ref::batch_long_f32_loss, 2));
  const auto r64s =
      sa::cross_entropy(to_tensor<double, 2, 3, 37>(ref::batch_f64_logits), to_id_matrix<2, 3>(ref::batch_f64_targets));
  REQUIRE(r64s);
  CHECK(within_ulps(*r64s, ref::batch_f64_loss, 2));
}

TEST_CASE("cross_entropy: a target outside the vocabulary is an error value naming it") {
  constexpr auto x = to_matrix<float, 5, 11>(ref::seq_f32_logits);
  const auto high =
      sa::cross_entropy(x, std::array<int, 5>{1, 2, 11, 3, 4});  // in constant evaluation, a compile error
  REQUIRE(!high);
  CHECK(high.error().code == sa::errc::id_out_of_range);
  CHECK(high.error().message ==
        "cross_entropy(logits, targets): target 11 at position 2 is outside the vocabulary [0, 11) of the logits");
  const auto negative = sa::cross_entropy(x, std::array<long, 5>{-1, 2, 3, 3, 4});
  REQUIRE(!negative);
  CHECK(negative.error().message.find("target -1 at position 0") != sa::error_message::npos);
  const sa::tensor<float, 2, 1, 3> t{};
  const auto batch = sa::cross_entropy(t, sa::matrix<unsigned, 2, 1>{{0u}, {3u}});
  REQUIRE(!batch);
  CHECK(batch.error().message.find("target 3 at position 1") != sa::error_message::npos);
}

TEST_CASE("cross_entropy: targets checked by check_ids give the loss itself") {
  constexpr auto x = to_matrix<float, 5, 11>(ref::seq_f32_logits);
  constexpr auto ids = sa::check_ids<11>(to_ids(ref::seq_f32_targets));
  static_assert(ids);
  constexpr float loss = sa::cross_entropy(x, *ids);
  static_assert(loss == *sa::cross_entropy(x, to_ids(ref::seq_f32_targets)));
  // Ids checked against a smaller vocabulary are in range for larger logits too.
  constexpr auto small = sa::check_ids<5>(std::array<int, 5>{0, 1, 2, 3, 4});
  static_assert(small);
  CHECK(sa::cross_entropy(x, *small) == *sa::cross_entropy(x, std::array<int, 5>{0, 1, 2, 3, 4}));
}

TEST_CASE("mse_loss: nn.MSELoss's mean, in static_assert and at run time") {
  SA_CHECK_BOTH(
      within_ulps(sa::mse_loss(to_matrix<float, 2, 3>(ref::mse_f32_input), to_matrix<float, 2, 3>(ref::mse_f32_target)),
                  ref::mse_f32_loss, 1));
  SA_CHECK_BOTH(within_ulps(
      sa::mse_loss(to_matrix<double, 2, 3>(ref::mse_f64_input), to_matrix<double, 2, 3>(ref::mse_f64_target)),
      ref::mse_f64_loss, 1));
  static_assert(sa::mse_loss(sa::matrix<float, 1, 2>{{1.0f, 3.0f}}, sa::matrix<float, 1, 2>{{0.0f, 1.0f}}) == 2.5f);
}
