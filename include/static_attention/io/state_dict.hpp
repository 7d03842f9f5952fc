// SPDX-License-Identifier: BSL-1.0
// load_state_dict: the book's GPTModel weights, from the .npz archive np.savez writes of its state
// dict, into a gpt_model in place:
//   static sa::gpt_model<float, sa::gpt2_124m> model;  // 650 MB: static storage, not the stack
//   if (auto r = sa::load_state_dict(model, "gpt2.npz"); !r) {
//     std::fprintf(stderr, "%s\n", r.error().message.c_str());
//     return 1;
//   }
// The archive is what tools/export_state_dict.py writes, i.e.
// `np.savez(path, **{k: v.numpy() for k, v in model.state_dict().items()})` (see docs/weights.md).
//
// Rules, all checked, all reported as a state_dict_error (a result<void, state_dict_error>, the
// library's result type) naming the tensor, what was expected and found, and the file:
//  - names: the book's state-dict keys. tok_emb.weight, pos_emb.weight; for each block i,
//    trf_blocks.i.att.W_query.weight, .W_key.weight, .W_value.weight (plus .bias each when
//    Cfg.qkv_bias), att.out_proj.weight and .bias, ff.layers.0.weight and .bias,
//    ff.layers.2.weight and .bias, norm1.scale and .shift, norm2.scale and .shift; final_norm.scale
//    and .shift; out_head.weight. Every one must be present (missing_tensor).
//  - layouts: nn.Linear weights (out x in), out_head.weight included, are transposed into the
//    library's x @ W layout (in x out); embeddings keep theirs (rows are ids); 1-D tensors
//    (biases, scales, shifts: shape (n,)) go into 1 x n rows.
//  - dtype: a gpt_model<float, Cfg> reads '<f4' arrays, a gpt_model<double, Cfg> '<f8' ones; any
//    other dtype is an error naming the tensor (no silent conversion).
//  - the causal-mask buffers trf_blocks.i.att.mask are optional (they hold no learned values,
//    and a model that registers them with persistent=False saves none); when present each must be
//    context_length x context_length and exactly triu(ones, 1), since the library's attention is
//    always causal (mask_mismatch otherwise). They may be float32 or float64 whatever T is: their
//    0s and 1s are exact in both.
//  - strict by default, as torch's load_state_dict(strict=True): every entry of the archive must
//    be a tensor of the model (unexpected_tensor otherwise, naming it: query, key and value
//    biases when Cfg.qkv_bias is false, a block trf_blocks.<n_layers>, out_head.bias, anything
//    else); load_options{.strict = false} ignores such entries.
//  - a torch.save file (a ZIP archive with data.pkl, or a legacy pickle) is refused with
//    torch_pickle: export it with tools/export_state_dict.py.
//
// All or nothing: the model is written only after the whole archive has been checked. Pass 1
// reads every entry it will load (its data CRC-checked, its header's dtype and shape, its size)
// and every mask, into scratch on the heap, writing nothing to the model; only then does pass 2
// read them again and write them into the model, each tensor only once its own read and checks
// have succeeded. So any error in the file (a missing or mismatched tensor, a truncated or damaged
// archive) leaves the model bit for bit unchanged. Pass 2 can still fail only if the file changes
// between the passes or a read fails (an I/O error): then `error().model_modified` says whether
// anything was written, and the message says what: the tensors before `error().tensor`, in
// state-dict order, hold the file's values, and that tensor and those after it their previous
// values. The cost of this guarantee is reading the archive twice.
//
// Memory: nothing grows with the model on the stack. Each tensor is read by load_npz (npy.hpp)
// into one heap buffer of its bytes and decoded straight into the model, or into heap scratch
// (pass 1, and nn.Linear weights in pass 2) freed after use: the heap peak is about twice the
// largest tensor (GPT-2 124M: tok_emb and out_head, 154 MB each). Time: the archive is read and
// CRC-checked twice, and each entry (GPT-2 124M has 173) is found by a scan of the central directory.
//
// An I/O header, like npy.hpp: no core header includes it.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/result.hpp>
#include <static_attention/io/detail/load_error.hpp>
#include <static_attention/io/detail/state_dict_keys.hpp>
#include <static_attention/io/load_options.hpp>
#include <static_attention/io/npy.hpp>
#include <static_attention/nn/gpt.hpp>

namespace static_attention {
namespace detail {

// The code of load_state_dict for a failure of the .npz reader.
inline errc state_dict_code_of(errc code) noexcept {
  switch (code) {
    case errc::file_not_found:
    case errc::file_unreadable:
    case errc::dtype_mismatch:
    case errc::shape_mismatch:
      return code;
    case errc::zip_entry_not_found:
      return errc::missing_tensor;
    default:
      return errc::malformed;
  }
}

// "'<f4', shape (8, 16)": what an entry read as M must hold (a 1 x n row is saved as (n,)).
inline std::string state_dict_expectation(const npy_spec& spec) {
  std::string s = "'" + std::string{spec.descr} + "', shape (";
  if (spec.rows == 1) return s + std::to_string(spec.cols) + ",)";
  return s + std::to_string(spec.rows) + ", " + std::to_string(spec.cols) + ")";
}

// The reader's failure on tensor `key`, whose shape is `role` in the configuration's terms.
inline bool state_dict_reader_failed(state_dict_pass& pass, const std::string& key, std::string_view role,
                                     std::string_view expected, const npy_error& e) {
  const errc code = state_dict_code_of(e.code);
  if (code == errc::file_not_found) return pass.fail(code, "found no such file", std::string{}, e.code);
  const std::string finding =
      code == errc::missing_tensor ? std::string{"found no entry"} : std::string{npy_finding(e.message)};
  return pass.fail(code, "tensor '" + key + "' (" + std::string{role} + ": " + std::string{expected} + "): " + finding,
                   key, e.code);
}

// A read in pass 2 failed: everything had been checked, so the file changed or could not be read.
inline bool state_dict_load_failed(state_dict_pass& pass, const std::string& key, const npy_error& e, bool written) {
  return pass.fail(state_dict_code_of(e.code),
                   "tensor '" + key + "' could not be read again after the whole file had been checked (did it " +
                       "change?), so " +
                       (written ? "the model is partly loaded (the tensors before it, in state-dict order, hold the "
                                  "file's values)"
                                : "the model is unchanged") +
                       ": " + std::string{npy_finding(e.message)},
                   key, e.code, written);
}

// Pass 1: reads every entry into heap scratch of the file's layout, writing nothing to the model.
template <class T>
struct state_dict_checker {
  state_dict_pass* pass;

  // A tensor kept in the file's layout: embeddings, and 1-D tensors as 1 x n rows.
  template <std::size_t R, std::size_t C>
  bool same(const std::string& key, std::string_view role, matrix<T, R, C>&) {
    return check<matrix<T, R, C>>(key, role);
  }
  // An nn.Linear weight, out x in in the file, kept as in x out.
  template <std::size_t In, std::size_t Out>
  bool transposed(const std::string& key, std::string_view role, matrix<T, In, Out>&) {
    return check<matrix<T, Out, In>>(key, role);
  }
  // A causal-mask buffer: optional, float32 or float64, exactly triu(ones(Ctx, Ctx), 1).
  template <std::size_t Ctx>
  bool mask(const std::string& key) {
    constexpr std::string_view role = "context_length x context_length";
    const std::string expected = "'<f4' or '<f8', shape (" + std::to_string(Ctx) + ", " + std::to_string(Ctx) + ")";
    const auto scratch = std::make_unique<matrix<T, Ctx, Ctx>>();
    const auto r = load_npz(pass->path, key, *scratch);
    if (r) return causal(key, *scratch);
    if (r.error().code == errc::zip_entry_not_found) return true;
    if (r.error().code != errc::dtype_mismatch) return state_dict_reader_failed(*pass, key, role, expected, r.error());
    using other = std::conditional_t<std::is_same_v<T, float>, double, float>;
    const auto widened = std::make_unique<matrix<other, Ctx, Ctx>>();
    const auto again = load_npz(pass->path, key, *widened);
    if (again) return causal(key, *widened);
    // Neither float dtype: report the first attempt, which asked for the model's own.
    return state_dict_reader_failed(*pass, key, role, expected,
                                    again.error().code == errc::dtype_mismatch ? r.error() : again.error());
  }

 private:
  template <class M>
  bool check(const std::string& key, std::string_view role) {
    const auto scratch = std::make_unique<M>();
    const auto r = load_npz(pass->path, key, *scratch);
    return r ? true : state_dict_reader_failed(*pass, key, role, state_dict_expectation(npy_spec_of<M>), r.error());
  }

  template <class U, std::size_t Ctx>
  bool causal(const std::string& key, const matrix<U, Ctx, Ctx>& m) {
    for (std::size_t i = 0; i < Ctx; ++i)
      for (std::size_t j = 0; j < Ctx; ++j) {
        const U expected = j > i ? U{1} : U{0};
        if (m.elems[i * Ctx + j] == expected) continue;
        char found[64];
        std::snprintf(found, sizeof found, "%.9g", static_cast<double>(m.elems[i * Ctx + j]));
        return pass->fail(errc::mask_mismatch,
                          "tensor '" + key +
                              "' (optional) must be the causal mask triu(ones(context_length, context_length), 1), "
                              "as the attention is always causal: found " +
                              found + " at (" + std::to_string(i) + ", " + std::to_string(j) + "), where it has " +
                              (j > i ? "1" : "0"),
                          key);
      }
    return true;
  }
};

// Pass 2: reads every entry again and writes it into the model, each only once it has been read
// and checked whole (load_npz writes its output only on success).
template <class T>
struct state_dict_loader {
  state_dict_pass* pass;
  bool written = false;

  template <std::size_t R, std::size_t C>
  bool same(const std::string& key, std::string_view, matrix<T, R, C>& target) {
    const auto r = load_npz(pass->path, key, target);
    if (!r) return state_dict_load_failed(*pass, key, r.error(), written);
    written = true;
    return true;
  }
  template <std::size_t In, std::size_t Out>
  bool transposed(const std::string& key, std::string_view, matrix<T, In, Out>& target) {
    const auto linear = std::make_unique<matrix<T, Out, In>>();  // nn.Linear's out x in
    const auto r = load_npz(pass->path, key, *linear);
    if (!r) return state_dict_load_failed(*pass, key, r.error(), written);
    for (std::size_t o = 0; o < Out; ++o)
      for (std::size_t i = 0; i < In; ++i) target.elems[i * Out + o] = linear->elems[o * In + i];
    written = true;
    return true;
  }
  template <std::size_t Ctx>
  bool mask(const std::string&) {
    return true;  // checked in pass 1; the model holds no mask
  }
};

// Strict loading: every entry of the archive is a tensor of the model (np.savez names them
// "<key>.npy").
template <class T, gpt_config Cfg>
bool state_dict_check_strict(state_dict_pass& pass, const model_file_sniff& sniff, gpt_model<T, Cfg>& model) {
  std::vector<std::string> names;
  if (sniff.names) {
    names = *sniff.names;
  } else {
    auto in = npy_input::open(pass.path, npy_context{pass.path, "a state dict"}, true);
    if (!in || !in.value().regular_size()) return pass.fail(errc::file_unreadable, "could not read the file again", {});
    zip_file_source zip{in.value(), *in.value().regular_size()};
    auto listed = zip_entry_names(zip, npy_context{pass.path, "a state dict"});
    if (!listed) return pass.fail(errc::malformed, npy_finding(listed.error().message), {}, listed.error().code);
    names = std::move(listed).value();
  }
  for (std::string& name : names)
    if (name.size() > 4 && name.substr(name.size() - 4) == ".npy") name.resize(name.size() - 4);
  const std::string stranger = state_dict_first_unexpected<Cfg>(names, state_dict_keys(model));
  return stranger.empty() || pass.unexpected(stranger, state_dict_unexpected_why<Cfg>(stranger));
}

}  // namespace detail

/// Loads the state dict at `path` (an .npz of `model.state_dict()` written by np.savez, e.g. by
/// tools/export_state_dict.py) into `model`, in place: the model is written only once the
/// whole archive has been checked, so on any error in the file it is left unchanged (see
/// state_dict_error::model_modified for the one exception, a read failing after the checks).
/// A gpt_model<float, Cfg> reads float32 ('<f4') arrays, a gpt_model<double, Cfg> float64 ('<f8').
/// Entries the model does not have are refused unless `options.strict` is false.
template <class T, gpt_config Cfg>
requires std::same_as<T, float> || std::same_as<T, double> state_dict_result
load_state_dict(gpt_model<T, Cfg>& model, const std::filesystem::path& path, const load_options& options = {}) {
  detail::state_dict_pass pass{path.string(), "load_state_dict", std::nullopt};
  const auto sniff = detail::sniff_model_file(pass.path);
  if (!detail::refuse_torch_file(pass, sniff) || !detail::refuse_safetensors_file(pass, sniff))
    return std::move(*pass.failure);
  detail::state_dict_checker<T> checker{&pass};
  if (!detail::visit_state_dict(checker, model)) return std::move(*pass.failure);
  if (options.strict && !detail::state_dict_check_strict(pass, sniff, model)) return std::move(*pass.failure);
  detail::state_dict_loader<T> loader{&pass};
  if (!detail::visit_state_dict(loader, model)) return std::move(*pass.failure);
  return {};
}

}  // namespace static_attention
