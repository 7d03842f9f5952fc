// SPDX-License-Identifier: BSL-1.0
// What the model loaders (load_state_dict, load_safetensors) share: their error type, the
// messages that name the tensor first and the file last, and the recognition of torch.save files.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <static_attention/core/result.hpp>
#include <static_attention/io/detail/error_stream.hpp>
#include <static_attention/io/detail/io_message.hpp>
#include <static_attention/io/detail/npy_file.hpp>
#include <static_attention/io/detail/npy_zip.hpp>

namespace static_attention {

/// The codes of load_state_dict and load_safetensors: the library's errc (core/result.hpp).
using state_dict_errc = errc;

/// A failure of load_state_dict or load_safetensors: a code to branch on and a message for people
/// that names the tensor, what was expected, what was found, and the file.
struct state_dict_error {
  errc code{};
  error_message message;
  /// The key at fault as the file names it, e.g. "pos_emb.weight"; empty when the file itself is at fault.
  std::string tensor;
  /// The .npz reader's own code when the reader found the fault (e.g. zip_crc_mismatch).
  std::optional<errc> npy_code;
  /// False for every failure found while checking, which is every failure the file's contents
  /// can cause: the model is then unchanged. True only if a read failed after the whole file
  /// had been checked (the file changed, or an I/O error) and tensors had already been written:
  /// those before `tensor`, in state-dict order.
  bool model_modified = false;
};

/// Success or a state_dict_error: `if (auto r = load_state_dict(model, path); !r) ...`.
using state_dict_result = result<void, state_dict_error>;

namespace detail {

// What a loader's passes share: the file, the loader's name for messages, and the first failure.
struct state_dict_pass {
  std::string path;
  std::string loader;  // "load_state_dict"
  std::optional<state_dict_error> failure;

  // "<loader>: <head>; in <path>", the path shortened from its front if need be.
  error_message say(std::string_view head) const { return io_message({loader, ": ", head, "; in "}, path, {}); }

  bool fail(errc code, std::string_view head, const std::string& key, std::optional<errc> reader_code = std::nullopt,
            bool modified = false) {
    failure = state_dict_error{code, say(head), key, reader_code, modified};
    return false;
  }

  // A key of the file that the model does not have, refused when loading strictly.
  bool unexpected(const std::string& key, std::string_view why) {
    return fail(errc::unexpected_tensor,
                "unexpected tensor '" + key + "': " + std::string{why} + "; load_options{.strict = false} ignores it",
                key);
  }
};

// The finding of an .npy/.npz reader's message "<name>: cannot read <expected>: <finding>"
// (every expectation ends in ')'), or the whole message if it has no such form.
inline std::string_view npy_finding(std::string_view message) {
  const std::size_t read = message.find(": cannot read ");
  if (read == std::string_view::npos) return message;
  const std::size_t end = message.find("): ", read);
  return end == std::string_view::npos ? message : message.substr(end + 3);
}

// What the first bytes and, for a ZIP archive, the entry names of a model file say about it.
struct model_file_sniff {
  bool pickle = false;                            // a legacy torch.save file: a pickle (0x80, protocol 2 to 5)
  bool torch_zip = false;                         // a torch.save ZIP archive: it has a data.pkl
  bool zip = false;                               // starts with a ZIP local header
  bool safetensors = false;                       // an 8-byte header length that fits the file, then '{'
  std::optional<std::vector<std::string>> names;  // the archive's entries, when they could be listed
};

inline bool is_torch_pickle_entry(std::string_view name) {
  constexpr std::string_view pkl = "data.pkl";
  return name == pkl || (name.size() > pkl.size() && name.substr(name.size() - pkl.size() - 1) == "/data.pkl");
}

// Looks at a file's first bytes, and at the entry names of a ZIP archive, without judging it:
// errors (damage, a short file) are left for the loader's own reads to report.
template <class Source>
model_file_sniff sniff_model_source(Source& src, const npy_context& ctx) {
  model_file_sniff s;
  if (src.size() < 4) return s;
  const std::size_t head_len = src.size() < 9 ? 4 : 9;
  const auto head = src.read(0, head_len, ctx);
  if (!head) return s;
  const auto byte = [&](std::size_t i) { return std::to_integer<unsigned>(head.value()[i]); };
  s.safetensors = head_len == 9 && byte(8) == '{' && zip_u64(head.value(), 0) <= src.size() - 8;
  s.pickle = !s.safetensors && byte(0) == 0x80 && byte(1) >= 2 && byte(1) <= 5;
  s.zip = zip_u32(head.value(), 0) == zip_local_sig;
  if (!s.zip) return s;
  auto names = zip_entry_names(src, ctx);
  if (!names) return s;
  for (const std::string& name : names.value()) s.torch_zip = s.torch_zip || is_torch_pickle_entry(name);
  s.names = std::move(names).value();
  return s;
}

// The same for a file; nothing for a path that is no regular file.
inline model_file_sniff sniff_model_file(const std::string& path) {
  const npy_context ctx{path, "a model file"};
  auto in = npy_input::open(path, ctx, true);
  if (!in || !in.value().regular_size()) return {};
  zip_file_source src{in.value(), *in.value().regular_size()};
  return sniff_model_source(src, ctx);
}

// The refusal of a safetensors file by the .npz loader.
inline bool refuse_safetensors_file(state_dict_pass& pass, const model_file_sniff& s) {
  if (!s.safetensors || s.zip) return true;
  return pass.fail(errc::bad_magic, "found a safetensors file, not an .npz archive; load_safetensors reads it", {});
}

// The torch_pickle refusal, if the file is a torch.save file.
inline bool refuse_torch_file(state_dict_pass& pass, const model_file_sniff& s) {
  if (!s.pickle && !s.torch_zip) return true;
  return pass.fail(errc::torch_pickle,
                   std::string{"found a torch.save file ("} + (s.pickle ? "a pickle" : "a ZIP archive with data.pkl") +
                       "): convert it with tools/export_state_dict.py (.npz) or tools/export_gpt_weights.py",
                   std::string{});
}

}  // namespace detail
}  // namespace static_attention
