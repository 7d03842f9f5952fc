// SPDX-License-Identifier: BSL-1.0
// GPT-2's tokenizer, exactly as tiktoken's `gpt2` encoding: byte-level BPE over OpenAI's 50257
// tokens, with <|endoftext|> (50256) recognised in the text as
// `tiktoken.get_encoding("gpt2").encode(text, allowed_special={"<|endoftext|>"})` does (the
// book's call). Constexpr, no heap, no exceptions.
//
// A gpt2_tokenizer is a view over three tables (the tokens' bytes, their offsets and a hash index)
// that live elsewhere: in static storage for a vocabulary embedded at compile time
// (tools/embed_gpt2_vocab), or on the heap for one read at run time
// (static_attention/io/tokenizer_files.hpp). Copying it copies three pointers.
//
// Text that is not well-formed UTF-8 (a stray continuation byte, an overlong form, a surrogate,
// a sequence cut off at the end) is refused with errc::invalid_utf8 and the byte offset, before
// any id is written: tiktoken takes a Python str, which cannot hold such bytes. Decoding writes
// the tokens' bytes as they are; see gpt2_stream_decoder for printing them as text.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include <static_attention/core/result.hpp>
#include <static_attention/text/detail/gpt2_bpe.hpp>
#include <static_attention/text/detail/gpt2_pretokenizer.hpp>
#include <static_attention/text/detail/utf8.hpp>

namespace static_attention {

/// GPT-2's vocabulary size: 256 bytes, 50000 merges and <|endoftext|>.
inline constexpr std::size_t gpt2_vocab_size = 50257;
/// The id of <|endoftext|>, GPT-2's one special token.
inline constexpr std::size_t gpt2_end_of_text = 50256;
/// The text of <|endoftext|>.
inline constexpr std::string_view gpt2_end_of_text_text = "<|endoftext|>";
/// The number of slots of a gpt2_vocab_tables hash index (a power of two).
inline constexpr std::size_t gpt2_hash_slot_count = std::size_t{1} << 17;
/// The longest pre-token (a run of letters, digits, other symbols or white space) encode merges:
/// a longer one is refused with errc::capacity_exceeded (the merge's storage is on the stack).
inline constexpr std::size_t gpt2_max_pretoken_bytes = 8192;

/// An integer type that can hold every GPT-2 token id (0 ... 50256): int, std::int32_t,
/// std::uint16_t, std::size_t, ... but not std::int16_t, char or bool.
template <class I>
concept gpt2_token_id = std::integral<I> && !std::same_as<std::remove_cv_t<I>, bool> &&
                        std::numeric_limits<I>::max() >= static_cast<std::uintmax_t>(gpt2_end_of_text);

/// The hash of a token's bytes in a gpt2_vocab_tables index: 32-bit FNV-1a.
constexpr std::uint32_t gpt2_token_hash(std::string_view bytes) noexcept {
  std::uint32_t h = 2166136261u;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return h;
}

/// The tables a gpt2_tokenizer reads, which its owner keeps alive.
struct gpt2_vocab_tables {
  /// Every token's bytes, in id order, one after another.
  const char* token_bytes = nullptr;
  /// gpt2_vocab_size + 1 offsets: token i is token_bytes[token_offsets[i] .. token_offsets[i + 1]).
  const std::uint32_t* token_offsets = nullptr;
  /// gpt2_hash_slot_count ids (0xFFFF: empty) of every token but <|endoftext|>, placed by
  /// gpt2_token_hash with linear probing.
  const std::uint16_t* hash_slots = nullptr;
};

namespace detail {
template <class T>
inline constexpr bool is_dynamic_span_v = false;
template <class T>
inline constexpr bool is_dynamic_span_v<std::span<T>> = true;
// A contiguous range other than a std::span<T> (std::array, std::vector, a C array, a span of
// fixed extent), to be viewed as one.
// (std::data and std::size rather than <ranges>, which brings <string> with it in libstdc++ 12.)
template <class R>
concept span_convertible_range = requires(R& r) {
  { std::data(r) } -> std::convertible_to<const volatile void*>;
  { std::size(r) } -> std::convertible_to<std::size_t>;
}
&&!is_dynamic_span_v<std::remove_cvref_t<R>>;
// The element type of such a range (const if it is const).
template <class R>
using range_element_t = std::remove_pointer_t<decltype(std::data(std::declval<R&>()))>;
// The dynamic span over such a range.
template <class R>
constexpr auto as_span(R& r) noexcept {
  return std::span<range_element_t<R>>(std::data(r), std::size(r));
}
}  // namespace detail

/// GPT-2's byte-level BPE tokenizer: text to token ids and back, in constant evaluation too. A
/// literal type; a view over gpt2_vocab_tables, valid while they are.
class gpt2_tokenizer {
 public:
  /// A tokenizer over `tables`, which must be GPT-2's as tools/embed_gpt2_vocab or
  /// load_gpt2_tokenizer builds them (they are not checked here).
  constexpr explicit gpt2_tokenizer(const gpt2_vocab_tables& tables) noexcept : tables_(tables) {}

  /// The tables viewed.
  constexpr const gpt2_vocab_tables& tables() const noexcept { return tables_; }

  /// The bytes of token `id`; empty for an id outside the vocabulary.
  constexpr std::string_view token(std::size_t id) const noexcept {
    if (id >= gpt2_vocab_size) return {};
    const std::uint32_t begin = tables_.token_offsets[id];
    return {tables_.token_bytes + begin, std::size_t{tables_.token_offsets[id + 1]} - begin};
  }

  /// The id of the token whose bytes are `bytes` (not <|endoftext|>), if there is one.
  constexpr std::optional<std::size_t> find(std::string_view bytes) const noexcept {
    const std::uint16_t id = lookup(bytes);
    if (id == detail::no_rank) return std::nullopt;
    return id;
  }

  /// Encodes `text` into `out` and returns the number of ids written. Errors: invalid_utf8 (with
  /// the byte offset; nothing written), output_too_small (with the count needed; nothing
  /// written beyond `out`), capacity_exceeded (a pre-token over gpt2_max_pretoken_bytes).
  template <gpt2_token_id I>
  constexpr result<std::size_t> encode(std::string_view text, std::span<I> out) const noexcept {
    std::size_t written = 0;
    auto r = for_each_token(text, [&](std::uint16_t id) {
      if (written < out.size()) out[written] = static_cast<I>(id);
      ++written;
    });
    if (!r) return r.error();
    if (written > out.size())
      return make_error(errc::output_too_small, "gpt2_tokenizer::encode(text, out): the text is ", written,
                        " tokens but out holds ", out.size());
    return written;
  }
  /// encode(text, std::span(out)) for a contiguous range (std::array, std::vector, a C array).
  template <detail::span_convertible_range R>
  requires gpt2_token_id<detail::range_element_t<R>>
  constexpr auto encode(std::string_view text, R&& out) const noexcept { return encode(text, detail::as_span(out)); }

  /// The number of tokens of `text`, as encode would write (same errors but output_too_small).
  constexpr result<std::size_t> count(std::string_view text) const noexcept;

  /// Writes the bytes of `ids` into `out` and returns their number. Errors, with nothing
  /// written: id_out_of_range (an id < 0 or >= 50257, with its position), output_too_small
  /// (with the byte count needed). The bytes are the tokens' as they are: ids cut from a longer
  /// sequence may end inside a UTF-8 character.
  template <gpt2_token_id I>
  constexpr result<std::size_t> decode(std::span<const I> ids, std::span<char> out) const noexcept {
    std::size_t needed = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (!in_vocab(ids[i]))
        return make_error(errc::id_out_of_range, "gpt2_tokenizer::decode(ids, out): ids[", i, "] is ", ids[i],
                          ", outside GPT-2's vocabulary [0, 50257)");
      needed += token(static_cast<std::size_t>(ids[i])).size();
    }
    if (needed > out.size())
      return make_error(errc::output_too_small, "gpt2_tokenizer::decode(ids, out): the text is ", needed,
                        " bytes but out holds ", out.size());
    std::size_t at = 0;
    for (const I id : ids)
      for (const char c : token(static_cast<std::size_t>(id))) out[at++] = c;
    return at;
  }
  /// decode(std::span(ids), out) for a contiguous range of ids.
  template <detail::span_convertible_range R>
  requires gpt2_token_id<std::remove_cv_t<detail::range_element_t<R>>>
  constexpr auto decode(R&& ids, std::span<char> out) const noexcept {
    return decode(std::span<const std::remove_cv_t<detail::range_element_t<R>>>(detail::as_span(ids)), out);
  }
  /// decode for a span of non-const ids.
  template <gpt2_token_id I>
  requires(!std::is_const_v<I>) constexpr auto decode(std::span<I> ids, std::span<char> out) const noexcept {
    return decode(std::span<const I>(ids), out);
  }

  /// True if `id` is a token id of GPT-2 (0 <= id < 50257).
  template <gpt2_token_id I>
  static constexpr bool in_vocab(I id) noexcept {
    if constexpr (std::is_signed_v<I>)
      if (id < I{0}) return false;
    return static_cast<std::uintmax_t>(id) < gpt2_vocab_size;
  }

 private:
  // The id of `bytes` in the hash index, or no_rank.
  constexpr std::uint16_t lookup(std::string_view bytes) const noexcept {
    constexpr std::size_t mask = gpt2_hash_slot_count - 1;
    for (std::size_t slot = gpt2_token_hash(bytes) & mask;; slot = (slot + 1) & mask) {
      const std::uint16_t id = tables_.hash_slots[slot];
      if (id == detail::no_rank || token(id) == bytes) return id;
    }
  }

  // Calls emit(id) for each token of `text`, in order.
  template <class Emit>
  constexpr result<void> for_each_token(std::string_view text, Emit&& emit) const noexcept {
    if (const std::size_t bad = detail::first_invalid_utf8(text); bad != std::string_view::npos)
      return make_error(errc::invalid_utf8, "gpt2_tokenizer::encode(text, out): the text is not valid UTF-8 at byte ",
                        bad);
    std::size_t at = 0;
    for (;;) {  // text between <|endoftext|>s, each pre-tokenized on its own, as tiktoken does
      const std::size_t special = text.find(gpt2_end_of_text_text, at);
      const std::size_t end = special == std::string_view::npos ? text.size() : special;
      auto r = encode_ordinary(text.substr(at, end - at), at, emit);
      if (!r) return r;
      if (special == std::string_view::npos) return {};
      emit(static_cast<std::uint16_t>(gpt2_end_of_text));
      at = special + gpt2_end_of_text_text.size();
    }
  }

  // The tokens of text with no special token in it; `offset` is its place in the whole text.
  template <class Emit>
  constexpr result<void> encode_ordinary(std::string_view segment, std::size_t offset, Emit& emit) const noexcept {
    const auto rank = [this](std::string_view bytes) { return lookup(bytes); };
    for (std::size_t at = 0; at < segment.size();) {
      const std::size_t end = detail::next_pretoken(segment, at);
      const std::string_view piece = segment.substr(at, end - at);
      if (const std::uint16_t whole = lookup(piece); whole != detail::no_rank) {
        emit(whole);
      } else {
        bool ok = false;
        if (piece.size() <= 32)  // the merge's arrays sized to the piece (constant evaluation counts them)
          ok = detail::byte_pair_merge<32>(piece, rank, emit);
        else if (piece.size() <= 512)
          ok = detail::byte_pair_merge<512>(piece, rank, emit);
        else if (piece.size() <= gpt2_max_pretoken_bytes)
          ok = detail::byte_pair_merge<gpt2_max_pretoken_bytes>(piece, rank, emit);
        else
          return make_error(errc::capacity_exceeded, "gpt2_tokenizer::encode(text, out): the pre-token at byte ",
                            offset + at, " is ", piece.size(), " bytes, over the limit of ", gpt2_max_pretoken_bytes);
        if (!ok)
          return make_error(errc::malformed, "gpt2_tokenizer::encode(text, out): the vocabulary lacks a byte of ",
                            "the pre-token at byte ", offset + at);
      }
      at = end;
    }
    return {};
  }

  gpt2_vocab_tables tables_;
};

// Defined after the class: Clang 16 cannot constant-evaluate a member template instantiated from
// inside the class body before that template's definition.
constexpr result<std::size_t> gpt2_tokenizer::count(std::string_view text) const noexcept {
  std::size_t n = 0;
  auto r = for_each_token(text, [&](std::uint16_t) { ++n; });
  if (!r) return r.error();
  return n;
}

}  // namespace static_attention
