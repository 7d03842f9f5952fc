// SPDX-License-Identifier: BSL-1.0
// load_gpt2_tokenizer: GPT-2's tokenizer from OpenAI's two files, at run time.
//   auto tok = sa::load_gpt2_tokenizer("encoder.json", "vocab.bpe");
//   if (!tok) { std::fprintf(stderr, "%s\n", tok.error().message.c_str()); return 1; }
//   std::array<int, 64> ids;
//   auto n = tok->encode("Hello, I am", ids);  // 15496, 11, 314, 716
// The tables (about 900 kB) are on the heap, owned by the loaded_gpt2_tokenizer, which itself is
// a few pointers: keeping it on the stack is fine. It is a gpt2_tokenizer (text/), so it encodes
// and decodes, and passes wherever a `const gpt2_tokenizer&` is asked for; a gpt2_tokenizer
// copied from it is a view, valid while it lives.
//
// Every file is checked, each error naming the file, the line and the column (errc::malformed_line):
// encoder.json must be one JSON object of 50257 distinct tokens, written in GPT-2's
// byte-to-unicode alphabet, to the ids 0 ... 50256, each once, with the first 256 single bytes
// and 50256 "<|endoftext|>"; vocab.bpe an optional "#version" line and then 50000 lines
// "<left> <right>", merge i making exactly token 256 + i (as tiktoken checks). A missing file is
// errc::file_not_found, an unreadable one errc::file_unreadable, one over 16 MB errc::too_large.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <static_attention/core/result.hpp>
#include <static_attention/io/detail/error_stream.hpp>
#include <static_attention/io/detail/gpt2_vocab_files.hpp>
#include <static_attention/text/gpt2_tokenizer.hpp>

namespace static_attention {

/// A gpt2_tokenizer that owns its tables (on the heap), as load_gpt2_tokenizer returns it.
class loaded_gpt2_tokenizer : public gpt2_tokenizer {
 public:
  /// A tokenizer over `storage`, which must hold tables build_gpt2_tables made.
  explicit loaded_gpt2_tokenizer(detail::gpt2_vocab_storage storage) noexcept
      : gpt2_tokenizer(gpt2_vocab_tables{}), storage_(std::move(storage)) {
    rebind();
  }
  loaded_gpt2_tokenizer(const loaded_gpt2_tokenizer& other) : gpt2_tokenizer(other), storage_(other.storage_) {
    rebind();
  }
  loaded_gpt2_tokenizer(loaded_gpt2_tokenizer&& other) noexcept
      : gpt2_tokenizer(other), storage_(std::move(other.storage_)) {
    rebind();
  }
  loaded_gpt2_tokenizer& operator=(const loaded_gpt2_tokenizer& other) {
    if (this != &other) {
      storage_ = other.storage_;
      rebind();
    }
    return *this;
  }
  loaded_gpt2_tokenizer& operator=(loaded_gpt2_tokenizer&& other) noexcept {
    storage_ = std::move(other.storage_);
    rebind();
    return *this;
  }
  ~loaded_gpt2_tokenizer() = default;

  /// The token bytes, offsets and hash slots, e.g. for writing them out (tools/embed_gpt2_vocab).
  const detail::gpt2_vocab_storage& storage() const noexcept { return storage_; }

 private:
  void rebind() noexcept {
    static_cast<gpt2_tokenizer&>(*this) =
        gpt2_tokenizer(gpt2_vocab_tables{storage_.bytes.data(), storage_.offsets.data(), storage_.slots.data()});
  }

  detail::gpt2_vocab_storage storage_;
};

/// GPT-2's tokenizer from OpenAI's `encoder.json` and `vocab.bpe` (third_party/gpt2-vocab/ holds
/// them), every line checked; an error names the file and the line.
inline result<loaded_gpt2_tokenizer> load_gpt2_tokenizer(const std::filesystem::path& encoder_json_path,
                                                         const std::filesystem::path& vocab_bpe_path) {
  constexpr std::size_t limit = std::size_t{16} << 20;
  auto json = detail::read_vocab_file(encoder_json_path, limit);
  if (!json) return json.error();
  auto bpe = detail::read_vocab_file(vocab_bpe_path, limit);
  if (!bpe) return bpe.error();
  const std::string json_label = detail::vocab_file_label(encoder_json_path);
  auto vocab = detail::encoder_json_parser(*json, json_label).parse();
  if (!vocab) return vocab.error();
  if (auto r = detail::check_vocab_bpe(*bpe, detail::vocab_file_label(vocab_bpe_path), *vocab); !r) return r.error();
  auto tables = detail::build_gpt2_tables(*vocab, json_label, *json);
  if (!tables) return tables.error();
  return loaded_gpt2_tokenizer(std::move(*tables));
}

}  // namespace static_attention
