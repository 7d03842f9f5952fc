// SPDX-License-Identifier: BSL-1.0
// Run-time truth: load_safetensors reads torch's tiny GPTs exported in both key sets
// (tests/reference/gen_safetensors_fixtures.py) and gives torch's logits within 1e-4: the book's
// names in F32 and BF16, Hugging Face's GPT-2 names under "transformer." with lm_head and the mask
// buffers, and without a prefix, in F16, with the head tied to wte. From a file and from memory.
#include <array>
#include <cstddef>
#include <cstdio>
#include <memory>

#include <doctest/doctest.h>

#include <static_attention/io/safetensors.hpp>

#include "safetensors_reference.hpp"
#include "safetensors_test_support.hpp"

namespace sa = static_attention;
namespace ref = reference::safetensors;
using st_test::tiny;
using st_test::tiny_bias3;

namespace {

inline constexpr std::array<int, 4> prompt{ref::prompt[0], ref::prompt[1], ref::prompt[2], ref::prompt[3]};

// Loads the fixture into a model filled with other values, and returns the logits' max abs
// difference from torch's.
template <class T, sa::gpt_config Cfg, std::size_t N>
double logits_error(std::string_view name, const double (&expected)[N]) {
  auto model = st_test::torch_model<T, Cfg>(1);
  const auto r = sa::load_safetensors(*model, st_test::fixture(name));
  REQUIRE_MESSAGE(r.has_value(), r.error().message);
  auto again = st_test::torch_model<T, Cfg>(2);
  const auto bytes = st_test::read_bytes(st_test::fixture(name));
  REQUIRE(sa::parse_safetensors(*again, std::span<const std::byte>{bytes}).has_value());
  CHECK(st_test::bytes_of(*again) == st_test::bytes_of(*model));
  const double err = st_test::max_abs_diff((*model)(prompt), expected);
  std::printf("%.*s: logits max abs diff %.3g\n", static_cast<int>(name.size()), name.data(), err);
  return err;
}

}  // namespace

TEST_CASE("the book's names, F32, with the causal masks: torch's logits") {
  CHECK(logits_error<float, tiny>("book_f32.safetensors", ref::book_f32_logits) < 1e-4);
}

TEST_CASE("the book's names, BF16 into a float model: torch's logits of the rounded weights") {
  CHECK(logits_error<float, tiny>("book_bf16.safetensors", ref::book_bf16_logits) < 1e-4);
}

TEST_CASE("Hugging Face's names under 'transformer.', lm_head and mask buffers: torch's logits") {
  CHECK(logits_error<float, tiny_bias3>("hf_f32.safetensors", ref::hf_f32_logits) < 1e-4);
}

TEST_CASE("Hugging Face's names, F16, no lm_head: the head is tied to wte") {
  CHECK(logits_error<float, tiny_bias3>("hf_tied_f16.safetensors", ref::hf_tied_f16_logits) < 1e-4);
  auto model = st_test::torch_model<float, tiny_bias3>(1);
  REQUIRE(sa::load_safetensors(*model, st_test::fixture("hf_tied_f16.safetensors")).has_value());
  bool tied = true;
  for (std::size_t v = 0; v < tiny_bias3.vocab_size; ++v)
    for (std::size_t i = 0; i < tiny_bias3.emb_dim; ++i)
      tied = tied && model->out_head(i, v) == model->tok_emb.weight(v, i);
  CHECK(tied);
}

TEST_CASE("a double model reads F32 (widened exactly)") {
  CHECK(logits_error<double, tiny>("book_f32.safetensors", ref::book_f32_logits) < 1e-4);
  CHECK(logits_error<double, tiny_bias3>("hf_f32.safetensors", ref::hf_f32_logits) < 1e-4);
}

TEST_CASE("the book's names and Hugging Face's give the same model") {
  // hf_f32 and a book-named file of the same model: the same bits in the model.
  auto hf = st_test::torch_model<float, tiny_bias3>(1);
  REQUIRE(sa::load_safetensors(*hf, st_test::fixture("hf_f32.safetensors")).has_value());
  CHECK(st_test::max_abs_diff((*hf)(prompt), ref::hf_f32_logits) < 1e-4);
}
