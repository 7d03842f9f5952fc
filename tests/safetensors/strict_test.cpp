// SPDX-License-Identifier: BSL-1.0
// Run-time truth: load_safetensors is strict by default, as torch's load_state_dict(strict=True):
// a tensor the model does not have is errc::unexpected_tensor naming it (an extra lm_head.weight
// in the book's names, c_attn.bias for a model without qkv bias, an extra block), and the model
// keeps every bit; load_options{.strict = false} ignores such tensors and loads the rest.
#include <cstddef>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <static_attention/io/safetensors.hpp>

#include "safetensors_test_support.hpp"

namespace sa = static_attention;
using sa::errc;

namespace {
// The fixture with one more F32 tensor `name` of shape [2], first in the header, last in the data.
std::vector<std::byte> with_extra(std::string_view fixture, std::string_view name) {
  auto p = st_test::split(st_test::read_bytes(st_test::fixture(fixture)));
  const std::size_t end = p.data.size();
  p.header.insert(1, "\"" + std::string{name} + "\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[" +
                         std::to_string(end) + "," + std::to_string(end + 8) + "]},");
  p.data.resize(end + 8);
  return st_test::file_of(p.header, p.data);
}

// Loads `bytes` leniently and checks the model equals one loaded from `fixture` itself.
template <sa::gpt_config Cfg>
void lenient_loads_the_rest(const std::vector<std::byte>& bytes, std::string_view fixture) {
  auto lenient = st_test::torch_model<float, Cfg>(1);
  const auto r = st_test::load_both(*lenient, bytes, {.strict = false});
  REQUIRE_MESSAGE(r.has_value(), r.error().message);
  auto plain = st_test::torch_model<float, Cfg>(2);
  const auto base = st_test::read_bytes(st_test::fixture(fixture));
  const auto loaded = st_test::load_both(*plain, base, {.strict = false});
  REQUIRE(loaded.has_value());
  CHECK(st_test::bytes_of(*lenient) == st_test::bytes_of(*plain));
}
}  // namespace

TEST_CASE("an extra lm_head.weight among the book's names") {
  const auto bytes = with_extra("book_f32.safetensors", "lm_head.weight");
  st_test::check_refused(bytes, errc::unexpected_tensor, "lm_head.weight", "strict = false");
  lenient_loads_the_rest<st_test::tiny>(bytes, "book_f32.safetensors");
}

TEST_CASE("c_attn.bias for a model without qkv bias") {
  constexpr sa::gpt_config no_bias{64, 8, 18, 3, 2, false};
  const auto bytes = st_test::read_bytes(st_test::fixture("hf_f32.safetensors"));
  st_test::check_refused<no_bias>(bytes, errc::unexpected_tensor, "transformer.h.0.attn.c_attn.bias",
                                  "qkv_bias = true");
  auto lenient = st_test::torch_model<float, no_bias>(1);
  CHECK(st_test::load_both(*lenient, bytes, {.strict = false}).has_value());
}

TEST_CASE("a block more than the model has, in either key set") {
  const auto book = st_test::read_bytes(st_test::fixture("book_f32.safetensors"));
  st_test::check_refused<sa::gpt_config{64, 8, 16, 2, 1, false}>(book, errc::unexpected_tensor,
                                                                 "trf_blocks.1.att.W_query.weight", "n_layers = 1");
  const auto hf = st_test::read_bytes(st_test::fixture("hf_f32.safetensors"));
  auto one = st_test::torch_model<float, sa::gpt_config{64, 8, 18, 3, 1, true}>(7);
  const auto r = st_test::load_both(*one, hf);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == errc::unexpected_tensor);
  CHECK(r.error().tensor.substr(0, 16) == "transformer.h.1.");
  CHECK(st_test::contains(r.error().message, "n_layers = 1"));
}

TEST_CASE("an unknown tensor among Hugging Face's names, and the mask buffers are not unknown") {
  const auto bytes = with_extra("hf_f32.safetensors", "transformer.h.0.attn.rotary");
  st_test::check_refused<st_test::tiny_bias3>(bytes, errc::unexpected_tensor, "transformer.h.0.attn.rotary",
                                              "no such tensor");
  lenient_loads_the_rest<st_test::tiny_bias3>(bytes, "hf_f32.safetensors");
}
