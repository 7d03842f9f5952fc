// SPDX-License-Identifier: BSL-1.0
// Printing tokens as they come: a model emits one token at a time, and a token may end inside a
// UTF-8 character (an emoji is often two or three tokens). These decoders hold such a tail back
// until the character is complete, so that what they write is always whole characters.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include <static_attention/core/result.hpp>
#include <static_attention/text/detail/utf8.hpp>
#include <static_attention/text/gpt2_tokenizer.hpp>

namespace static_attention {

/// Bytes in, whole UTF-8 characters out. Bytes that can never be part of a well-formed character
/// come out as U+FFFD, one per maximal ill-formed subpart, as Python's
/// `bytes.decode("utf-8", errors="replace")` (and so tiktoken's `decode`) writes them. The
/// concatenation of everything written is that decode of the concatenated input.
class utf8_stream_decoder {
 public:
  /// The most bytes one push of n bytes can write: 3 * (n + 3) (each byte a U+FFFD at worst).
  static constexpr std::size_t max_output(std::size_t n) noexcept { return 3 * (n + pending_capacity); }

  /// Appends `bytes` and writes into `out` every character now complete; returns the count
  /// written. A character still incomplete is held (at most 3 bytes). Error: output_too_small,
  /// with the decoder unchanged and nothing written beyond `out`.
  constexpr result<std::size_t> push(std::string_view bytes, std::span<char> out) noexcept {
    return run(bytes, out, false);
  }

  /// Writes what is held back (an incomplete character, as one U+FFFD) and empties the decoder.
  constexpr result<std::size_t> finish(std::span<char> out) noexcept { return run({}, out, true); }

  /// The number of bytes held back, waiting for the rest of their character.
  constexpr std::size_t pending() const noexcept { return pending_size_; }

 private:
  static constexpr std::size_t pending_capacity = 3;

  // Decodes the held bytes followed by `bytes`; at the end, holds an incomplete tail unless
  // `final`.
  constexpr result<std::size_t> run(std::string_view bytes, std::span<char> out, bool final) noexcept {
    char held[pending_capacity]{};
    std::size_t held_size = 0;
    std::size_t written = 0;
    bool fits = true;
    const auto put = [&](std::string_view s) {
      if (written + s.size() > out.size()) fits = false;
      for (std::size_t k = 0; fits && k < s.size(); ++k) out[written + k] = s[k];
      written += s.size();
    };
    // The held bytes and the new ones, read as one sequence without copying the new ones.
    const std::size_t total = pending_size_ + bytes.size();
    const auto at = [&](std::size_t i) { return i < pending_size_ ? pending_[i] : bytes[i - pending_size_]; };
    std::size_t i = 0;
    while (i < total) {
      char window[4]{};
      std::size_t w = 0;
      for (; w < 4 && i + w < total; ++w) window[w] = at(i + w);
      const detail::utf8_scan scan = detail::scan_utf8(std::string_view(window, w), 0);
      if (scan.status == detail::utf8_status::ok) {
        put(std::string_view(window, scan.length));
      } else if (scan.status == detail::utf8_status::invalid || final) {
        put("\xEF\xBF\xBD");
      } else {  // an incomplete character at the end: hold it
        for (std::size_t k = 0; k < scan.length; ++k) held[k] = window[k];
        held_size = scan.length;
      }
      i += scan.length;
    }
    if (!fits)
      return make_error(errc::output_too_small, "utf8_stream_decoder::push(bytes, out): the characters are ", written,
                        " bytes but out holds ", out.size());
    for (std::size_t k = 0; k < held_size; ++k) pending_[k] = held[k];
    pending_size_ = held_size;
    return written;
  }

  char pending_[pending_capacity]{};
  std::size_t pending_size_ = 0;
};

/// GPT-2 token ids in, whole UTF-8 characters out: for printing a model's tokens as they come.
///   gpt2_stream_decoder dec{tok};
///   char buf[gpt2_stream_decoder::max_output_per_token];
///   for each new id: if (auto n = dec.push(id, buf)) fwrite(buf, 1, *n, stdout);
///   at the end: if (auto n = dec.finish(buf)) fwrite(buf, 1, *n, stdout);
class gpt2_stream_decoder {
 public:
  /// The most bytes one push writes (GPT-2's longest token is 128 bytes).
  static constexpr std::size_t max_output_per_token = utf8_stream_decoder::max_output(128);

  /// A decoder of `tok`'s ids; `tok`'s tables must outlive it.
  constexpr explicit gpt2_stream_decoder(const gpt2_tokenizer& tok) noexcept : tok_(tok) {}

  /// Decodes one id and writes the characters now complete; returns the count written. Errors,
  /// with the decoder unchanged: id_out_of_range, output_too_small.
  template <gpt2_token_id I>
  constexpr result<std::size_t> push(I id, std::span<char> out) noexcept {
    if (!gpt2_tokenizer::in_vocab(id))
      return make_error(errc::id_out_of_range, "gpt2_stream_decoder::push(id, out): id ", id,
                        " is outside GPT-2's vocabulary [0, 50257)");
    return utf8_.push(tok_.token(static_cast<std::size_t>(id)), out);
  }

  /// Writes what is held back (an incomplete character, as one U+FFFD) and empties the decoder.
  constexpr result<std::size_t> finish(std::span<char> out) noexcept { return utf8_.finish(out); }

  /// The number of bytes held back.
  constexpr std::size_t pending() const noexcept { return utf8_.pending(); }

 private:
  gpt2_tokenizer tok_;
  utf8_stream_decoder utf8_;
};

}  // namespace static_attention
