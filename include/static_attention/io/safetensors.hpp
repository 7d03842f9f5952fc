// SPDX-License-Identifier: BSL-1.0
// load_safetensors: a GPT's weights from a safetensors file into a gpt_model, in place:
//   static sa::gpt_model<float, cfg> model;  // GPT-2 124M is 650 MB: static storage
//   if (auto r = sa::load_safetensors(model, "model.safetensors"); !r) {
//     std::fprintf(stderr, "%s\n", r.error().message.c_str());
//     return 1;
//   }
//
// The file (https://github.com/huggingface/safetensors) is an 8-byte little-endian header length,
// a JSON header of at most 100,000,000 bytes that begins with '{' (tensors with dtype, shape and
// data_offsets, and optionally "__metadata__", strings), then the data, which the tensors' byte
// ranges must tile exactly. Two sets of names are read:
//  - the book's, as `safetensors.torch.save_file(model.state_dict(), path)` writes them for the
//    book's GPTModel: the keys load_state_dict reads (state_dict.hpp), with the same layouts
//    (nn.Linear weights out x in, transposed into the model) and the optional causal masks, which
//    must be triu(ones, 1);
//  - Hugging Face's GPT-2 (GPT2Model or GPT2LMHeadModel, with or without "transformer."):
//    wte, wpe, h.<i>.ln_1, h.<i>.attn.c_attn (Conv1D, emb x 3 emb: query | key | value),
//    h.<i>.attn.c_proj, h.<i>.ln_2, h.<i>.mlp.c_fc, h.<i>.mlp.c_proj, ln_f; Conv1D weights are
//    in x out, as the model stores them. lm_head.weight is optional: without it the head is tied
//    to wte (out_head = wte transposed), as GPT-2 ties them. The mask buffers h.<i>.attn.bias and
//    h.<i>.attn.masked_bias are skipped. OpenAI's GPT-2 has query/key/value biases: load it into
//    a gpt_config with qkv_bias = true.
// Element types: F32, F16 and BF16 into a float model, and F64 too into a double one, all exact
// conversions; anything else is a dtype_mismatch naming the tensor.
//
// All or nothing: every check (the header, every tensor's presence, dtype and shape, the masks'
// values, and with load_options::strict, which is the default, no tensor the model lacks) is made
// before the model is written. A read can then fail only if the file changes or an I/O error
// occurs: `error().model_modified` says whether anything was written (the tensor named, and
// those after it in state-dict order, may hold old or partly new values).
//
// Memory: the header is read into one buffer (at most 100 MB); the data are read tensor by
// tensor, at most 1 MiB at a time, and decoded straight into the model.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/result.hpp>
#include <static_attention/io/detail/load_error.hpp>
#include <static_attention/io/detail/npy_file.hpp>
#include <static_attention/io/detail/npy_zip.hpp>
#include <static_attention/io/detail/safetensors_data.hpp>
#include <static_attention/io/detail/safetensors_header.hpp>
#include <static_attention/io/detail/state_dict_keys.hpp>
#include <static_attention/io/load_options.hpp>
#include <static_attention/nn/gpt.hpp>

namespace static_attention {
namespace detail {

// "h.3." for the book's "trf_blocks.3.att.mask".
inline std::string hf_block_prefix(std::string_view key) {
  constexpr std::string_view blocks = "trf_blocks.";
  const std::size_t dot = key.find('.', blocks.size());
  return "h." + std::string{key.substr(blocks.size(), dot - blocks.size())} + ".";
}

// What both passes read: the bytes, the parsed header, the pass's error state, the context.
template <class Source>
struct safetensors_pass_state {
  Source* src;
  const safetensors_file* file;
  state_dict_pass* pass;
  const npy_context* ctx;
};

// Pass 1: checks every tensor the model has against the header, and the book's masks' values;
// writes nothing. Records the file's tensors it accounts for, for the strict check.
template <class T, class Source>
struct safetensors_checker : safetensors_pass_state<Source> {
  using safetensors_pass_state<Source>::src, safetensors_pass_state<Source>::file, safetensors_pass_state<Source>::pass,
      safetensors_pass_state<Source>::ctx;
  std::vector<std::string> used;

  template <std::size_t R, std::size_t C>
  bool same(const std::string& key, std::string_view role, matrix<T, R, C>&) {
    return check(safetensors_resolve(*file, key, R, C, false), role);
  }
  template <std::size_t In, std::size_t Out>
  bool transposed(const std::string& key, std::string_view role, matrix<T, In, Out>&) {
    return check(safetensors_resolve(*file, key, In, Out, true), role);
  }
  // The book's causal mask, optional, exactly triu(ones(Ctx, Ctx), 1) in any float dtype;
  // Hugging Face's mask buffers are skipped.
  template <std::size_t Ctx>
  bool mask(const std::string& key) {
    if (file->naming == safetensors_naming::hugging_face) {
      for (const char* buffer : {"attn.bias", "attn.masked_bias"})
        used.push_back(file->prefix + hf_block_prefix(key) + buffer);
      return true;
    }
    const safetensors_source s{file->find(key), key, {Ctx, Ctx}};
    if (s.tensor == nullptr) return true;
    used.push_back(key);
    if (!safetensors_check_source<double>(*pass, s, "the optional causal mask, context_length x context_length"))
      return false;
    return causal<Ctx>(s);
  }

 private:
  bool check(const safetensors_source& s, std::string_view role) {
    if (!safetensors_check_source<T>(*pass, s, role)) return false;
    used.push_back(s.name);
    return true;
  }

  template <std::size_t Ctx>
  bool causal(const safetensors_source& s) {
    const safetensors_kind kind = safetensors_kind_of(s.tensor->dtype);
    std::size_t bad_i = Ctx, bad_j = 0;
    double found = 0;
    npy_error failure;
    const bool read =
        safetensors_read_rows(*src, *file, *s.tensor, *ctx, failure, [&](std::uint64_t i, const std::byte* p) {
          for (std::size_t j = 0; j < Ctx && bad_i == Ctx; ++j) {
            const double v = safetensors_decode<double>(kind, p + j * s.tensor->width);
            if (v != (j > i ? 1.0 : 0.0)) bad_i = static_cast<std::size_t>(i), bad_j = j, found = v;
          }
        });
    if (!read) return pass->fail(errc::file_unreadable, npy_finding(failure.message), s.name);
    if (bad_i == Ctx) return true;
    char text[64];
    std::snprintf(text, sizeof text, "%.9g", found);
    return pass->fail(errc::mask_mismatch,
                      "tensor '" + s.name +
                          "' (optional) must be the causal mask triu(ones(context_length, context_length), 1), as "
                          "the attention is always causal: found " +
                          text + " at (" + std::to_string(bad_i) + ", " + std::to_string(bad_j) + "), where it has " +
                          (bad_j > bad_i ? "1" : "0"),
                      s.name);
  }
};

// Pass 2: reads every tensor again, straight into the model.
template <class T, class Source>
struct safetensors_loader : safetensors_pass_state<Source> {
  using safetensors_pass_state<Source>::src, safetensors_pass_state<Source>::file, safetensors_pass_state<Source>::pass,
      safetensors_pass_state<Source>::ctx;
  bool written = false;

  template <std::size_t R, std::size_t C>
  bool same(const std::string& key, std::string_view, matrix<T, R, C>& m) {
    return load(safetensors_resolve(*file, key, R, C, false), m.elems, C);
  }
  template <std::size_t In, std::size_t Out>
  bool transposed(const std::string& key, std::string_view, matrix<T, In, Out>& m) {
    return load(safetensors_resolve(*file, key, In, Out, true), m.elems, Out);
  }
  template <std::size_t Ctx>
  bool mask(const std::string&) {
    return true;  // checked in pass 1; the model holds no mask
  }

 private:
  bool load(const safetensors_source& s, T* target, std::size_t cols) {
    npy_error failure;
    if (!safetensors_copy<T>(*src, *file, s, target, cols, *ctx, failure))
      return pass->fail(failure.code,
                        "tensor '" + s.name + "' could not be read after the whole file had been checked (did it " +
                            "change?), so " +
                            (written ? "the model is partly loaded" : "the model may hold part of it") + ": " +
                            std::string{npy_finding(failure.message)},
                        s.name, failure.code, true);
    written = true;
    return true;
  }
};

// A safetensors file's first bytes when they are no header: a torch.save file, or an .npz.
template <class Source>
bool safetensors_refuse_other_formats(Source& src, state_dict_pass& pass, const npy_context& ctx) {
  if (src.size() >= 9) {
    const auto b = src.read(8, 1, ctx);
    if (b && std::to_integer<char>(b.value()[0]) == '{') return true;  // a header starts here: judge it as one
  }
  const model_file_sniff sniff = sniff_model_source(src, ctx);
  if (!refuse_torch_file(pass, sniff)) return false;
  if (sniff.zip)
    return pass.fail(errc::bad_magic,
                     "found a ZIP archive, not a safetensors file; load_state_dict reads the .npz archives of np.savez",
                     {});
  return true;
}

// The header: its length, its JSON, its tensors' layout against the file's size; and the names.
template <class Source>
bool safetensors_read_header(Source& src, state_dict_pass& pass, const npy_context& ctx, safetensors_file& f) {
  const std::uint64_t size = src.size();
  if (size < 8)
    return pass.fail(errc::truncated_header,
                     "found " + std::to_string(size) + " bytes, fewer than the 8 of the header length", {});
  const auto length = src.read(0, 8, ctx);
  if (!length) return pass.fail(errc::file_unreadable, npy_finding(length.error().message), {});
  const std::uint64_t n = zip_u64(length.value(), 0);
  if (n > safetensors_max_header)
    return pass.fail(errc::header_too_large,
                     "found a header length of " + std::to_string(n) + " bytes; the format's limit is " +
                         std::to_string(safetensors_max_header),
                     {});
  if (n > size - 8)
    return pass.fail(
        errc::truncated_header,
        "found a header length of " + std::to_string(n) + " bytes, and " + std::to_string(size - 8) + " bytes after it",
        {});
  const auto text = src.read(8, static_cast<std::size_t>(n), ctx);
  if (!text) return pass.fail(errc::file_unreadable, npy_finding(text.error().message), {});
  const std::string_view json{reinterpret_cast<const char*>(text.value().data()), static_cast<std::size_t>(n)};
  if (auto problem = parse_safetensors_header(json, size - 8 - n, f.header))
    return pass.fail(problem->code, problem->what, problem->key);
  f.data_at = 8 + n;
  f.index();
  return true;
}

// Which names the file uses: the book's (tok_emb.weight) or Hugging Face's GPT-2 (wte.weight).
inline bool safetensors_detect_naming(state_dict_pass& pass, safetensors_file& f) {
  if (f.find("tok_emb.weight") != nullptr) return true;
  f.naming = safetensors_naming::hugging_face;
  for (const char* prefix : {"transformer.", ""}) {
    f.prefix = prefix;
    if (f.find(f.prefix + "wte.weight") != nullptr) return true;
  }
  return pass.fail(errc::missing_tensor,
                   "tensor 'tok_emb.weight' (the book's names) or 'wte.weight' (Hugging Face's GPT-2, with or "
                   "without 'transformer.'): found neither",
                   "tok_emb.weight");
}

// Why a tensor of Hugging Face's names is not the model's.
template <gpt_config Cfg>
std::string hf_unexpected_why(std::string_view name, std::string_view prefix) {
  const std::string_view bias = "attn.c_attn.bias";
  if (!Cfg.qkv_bias && name.size() >= bias.size() && name.substr(name.size() - bias.size()) == bias)
    return "the query/key/value biases, but qkv_bias = false (OpenAI's GPT-2 needs qkv_bias = true)";
  const std::string next = std::string{prefix} + "h." + std::to_string(Cfg.n_layers) + ".";
  if (name.substr(0, next.size()) == next)
    return "the gpt_config has n_layers = " + std::to_string(Cfg.n_layers) + ", and the file has more blocks";
  return "the model has no such tensor";
}

// Strict loading: every tensor of the file is one the model has (or a skipped mask buffer).
template <gpt_config Cfg>
bool safetensors_check_strict(state_dict_pass& pass, const safetensors_file& f, std::vector<std::string> used) {
  std::vector<const safetensors_tensor*> order;
  for (const auto& t : f.header.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->begin < b->begin; });
  std::vector<std::string> names;
  for (const auto* t : order) names.push_back(t->name);
  const std::string stranger = state_dict_first_unexpected<Cfg>(names, used);
  if (stranger.empty()) return true;
  return pass.unexpected(stranger, f.naming == safetensors_naming::book ? state_dict_unexpected_why<Cfg>(stranger)
                                                                        : hf_unexpected_why<Cfg>(stranger, f.prefix));
}

// The whole load from a source (a file or memory): every check, then the writes.
template <class T, gpt_config Cfg, class Source>
state_dict_result safetensors_load(gpt_model<T, Cfg>& model, Source& src, state_dict_pass& pass, const npy_context& ctx,
                                   const load_options& options) {
  safetensors_file f;
  if (!safetensors_refuse_other_formats(src, pass, ctx) || !safetensors_read_header(src, pass, ctx, f) ||
      !safetensors_detect_naming(pass, f))
    return std::move(*pass.failure);
  safetensors_checker<T, Source> checker{{&src, &f, &pass, &ctx}, {}};
  if (!visit_state_dict(checker, model)) return std::move(*pass.failure);
  if (options.strict && !safetensors_check_strict<Cfg>(pass, f, std::move(checker.used)))
    return std::move(*pass.failure);
  safetensors_loader<T, Source> loader{{&src, &f, &pass, &ctx}};
  if (!visit_state_dict(loader, model)) return std::move(*pass.failure);
  return {};
}

}  // namespace detail

/// Loads the safetensors file at `path` into `model`, in place, from the book's state-dict names
/// (`safetensors.torch.save_file(model.state_dict(), path)`) or Hugging Face's GPT-2 names; the
/// model is written only once the whole file has been checked. F32, F16 and BF16 tensors are
/// read into a float model, and F64 too into a double one. Tensors the model does not have are
/// refused unless `options.strict` is false. Reads the header, then each tensor in chunks of at
/// most 1 MiB; the file must be a regular file.
template <class T, gpt_config Cfg>
requires std::same_as<T, float> || std::same_as<T, double> state_dict_result
load_safetensors(gpt_model<T, Cfg>& model, const std::filesystem::path& path, const load_options& options = {}) {
  detail::state_dict_pass pass{path.string(), "load_safetensors", std::nullopt};
  const detail::npy_context ctx{pass.path, "a safetensors file"};
  auto in = detail::npy_input::open(pass.path, ctx, true);
  if (!in) {
    pass.fail(in.error().code, detail::npy_finding(in.error().message), {});
    return std::move(*pass.failure);
  }
  if (!in.value().regular_size()) {
    pass.fail(errc::file_unreadable, "found no regular file; a safetensors file is read at its offsets", {});
    return std::move(*pass.failure);
  }
  detail::zip_file_source src{in.value(), *in.value().regular_size()};
  return detail::safetensors_load(model, src, pass, ctx, options);
}

/// Loads a safetensors file held in memory into `model`, as load_safetensors does; `name` names
/// it in messages.
template <class T, gpt_config Cfg>
requires std::same_as<T, float> || std::same_as<T, double> state_dict_result
parse_safetensors(gpt_model<T, Cfg>& model, std::span<const std::byte> bytes, const load_options& options = {},
                  std::string_view name = "<memory>") {
  detail::state_dict_pass pass{std::string{name}, "load_safetensors", std::nullopt};
  const detail::npy_context ctx{pass.path, "a safetensors file"};
  detail::zip_memory_source src{bytes};
  return detail::safetensors_load(model, src, pass, ctx, options);
}

}  // namespace static_attention
