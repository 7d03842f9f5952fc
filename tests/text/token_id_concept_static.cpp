// SPDX-License-Identifier: BSL-1.0
// Type-level truth: gpt2_token_id accepts the integer types that hold every id 0 ... 50256.
#include <cstddef>
#include <cstdint>

#include <static_attention/text/gpt2_tokenizer.hpp>

namespace sa = static_attention;

static_assert(sa::gpt2_token_id<int>);
static_assert(sa::gpt2_token_id<long>);
static_assert(sa::gpt2_token_id<std::int32_t>);
static_assert(sa::gpt2_token_id<std::uint16_t>);
static_assert(sa::gpt2_token_id<std::int64_t>);
static_assert(sa::gpt2_token_id<std::size_t>);
static_assert(sa::gpt2_token_id<const int>);
static_assert(!sa::gpt2_token_id<std::int16_t>);
static_assert(!sa::gpt2_token_id<std::int8_t>);
static_assert(!sa::gpt2_token_id<std::uint8_t>);
static_assert(!sa::gpt2_token_id<char>);
static_assert(!sa::gpt2_token_id<bool>);
static_assert(!sa::gpt2_token_id<float>);
static_assert(!sa::gpt2_token_id<double>);

// encode and decode are constrained on it, so a narrow span is not a candidate.
template <class I>
concept encodes_into = requires(const sa::gpt2_tokenizer& tok, std::span<I> out) { tok.encode("x", out); };
template <class I>
concept decodes_from = requires(const sa::gpt2_tokenizer& tok, std::span<const I> ids, std::span<char> out) {
  tok.decode(ids, out);
};
static_assert(encodes_into<int> && encodes_into<std::uint16_t>);
static_assert(!encodes_into<std::int16_t> && !encodes_into<std::uint8_t>);
static_assert(decodes_from<int> && !decodes_from<std::int16_t>);
