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
// Rules, all checked, all reported as a state_dict_error naming the file and the tensor:
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
//  - tensors of a different model are refused rather than ignored (unexpected_tensor): query,
//    key and value biases when Cfg.qkv_bias is false (a qkv_bias=True model, as OpenAI's GPT-2
//    weights need), a block trf_blocks.<n_layers>, and out_head.bias. Other extra entries are not
//    looked for.
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
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/hana/for_each.hpp>

#include <static_attention/gpt.hpp>
#include <static_attention/matrix.hpp>
#include <static_attention/npy.hpp>
#include <static_attention/transformer_block.hpp>

namespace static_attention {

/// What went wrong in load_state_dict.
enum class state_dict_errc {
  file_not_found,     ///< the path does not exist
  file_unreadable,    ///< the file exists but cannot be read (not a regular file, permissions, an I/O error)
  malformed,          ///< the archive or an entry is not what np.savez writes, or is damaged (npy_code says how)
  missing_tensor,     ///< no entry for a tensor the model has
  unexpected_tensor,  ///< an entry of another model: qkv biases with qkv_bias false, an extra block, out_head.bias
  dtype_mismatch,     ///< not '<f4' for a float model, or not '<f8' for a double one
  shape_mismatch,     ///< a tensor of another shape than the model's configuration gives
  mask_mismatch,      ///< a trf_blocks.<i>.att.mask that is not the causal mask triu(ones, 1)
};

/// The name of an error code, e.g. "missing_tensor".
constexpr std::string_view to_string_view(state_dict_errc code) noexcept {
  constexpr std::string_view names[] = {"file_not_found",    "file_unreadable", "malformed",      "missing_tensor",
                                        "unexpected_tensor", "dtype_mismatch",  "shape_mismatch", "mask_mismatch"};
  const auto i = static_cast<std::size_t>(code);
  return i < std::size(names) ? names[i] : std::string_view{"unknown"};
}

/// A failure of load_state_dict: a code to branch on and a message for people that names the
/// file, the tensor, what was expected and what was found.
struct state_dict_error {
  state_dict_errc code;
  std::string message;
  /// The state-dict key at fault, e.g. "pos_emb.weight"; empty when the file itself is missing.
  std::string tensor;
  /// The .npz reader's own code when the reader found the fault (e.g. zip_crc_mismatch).
  std::optional<npy_errc> npy_code;
  /// False for every failure found while checking, which is every failure the file's contents
  /// can cause: the model is then unchanged. True only if a read failed after the whole archive
  /// had been checked (the file changed, or an I/O error) and tensors had already been written:
  /// those before `tensor`, in state-dict order.
  bool model_modified = false;
};

namespace detail {
[[noreturn]] inline void state_dict_bad_access(const char* what, const std::string& message) noexcept {
  std::fprintf(stderr, "static_attention: %s%s%s\n", what, message.empty() ? "" : ": ", message.c_str());
  std::abort();
}
}  // namespace detail

/// Success or a state_dict_error, as `std::expected<void, state_dict_error>`. `value()` on a
/// failure and `error()` on a success print a message and abort(), so check `has_value()` (or
/// the result itself, as a bool) first.
class [[nodiscard]] state_dict_result {
 public:
  using value_type = void;

  /// A success.
  state_dict_result() noexcept = default;
  /// A failure.
  state_dict_result(state_dict_error error) : error_(std::move(error)) {}  // NOLINT: implicit, as std::expected

  /// True on success.
  bool has_value() const noexcept { return !error_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }

  /// Nothing, on success; aborts with the error's message on a failure.
  void value() const noexcept {
    if (error_) detail::state_dict_bad_access("state_dict_result::value() called on an error", error_->message);
  }

  /// The error; aborts on a success.
  const state_dict_error& error() const noexcept {
    if (!error_) detail::state_dict_bad_access("state_dict_result::error() called on a success", "");
    return *error_;
  }

 private:
  std::optional<state_dict_error> error_;
};

namespace detail {

inline state_dict_errc state_dict_code_of(npy_errc code) noexcept {
  switch (code) {
    case npy_errc::file_not_found:
      return state_dict_errc::file_not_found;
    case npy_errc::file_unreadable:
      return state_dict_errc::file_unreadable;
    case npy_errc::zip_entry_not_found:
      return state_dict_errc::missing_tensor;
    case npy_errc::dtype_mismatch:
      return state_dict_errc::dtype_mismatch;
    case npy_errc::shape_mismatch:
      return state_dict_errc::shape_mismatch;
    default:
      return state_dict_errc::malformed;
  }
}

// "trf_blocks.3.att.W_query.weight"
inline std::string state_dict_block_key(std::size_t block, std::string_view name) {
  return "trf_blocks." + std::to_string(block) + "." + std::string{name};
}

// The keys of block `index` (a function object, not a lambda: see elementwise.hpp).
struct state_dict_block_keys {
  std::size_t index;
  std::string operator()(std::string_view name) const { return state_dict_block_key(index, name); }
};

// What both passes share: the archive, the call as messages quote it, and the first failure.
struct state_dict_pass {
  std::string path;
  std::string call;  // load_state_dict(model, "<path>")
  std::optional<state_dict_error> failure;

  bool fail(state_dict_errc code, std::string message, const std::string& key, std::optional<npy_errc> npy_code,
            bool modified = false) {
    failure = state_dict_error{code, std::move(message), key, npy_code, modified};
    return false;
  }

  // The reader's failure on tensor `key`, whose shape is `role` in the configuration's terms.
  bool reader_failed(const std::string& key, std::string_view role, const npy_error& e) {
    const state_dict_errc code = state_dict_code_of(e.code);
    if (code == state_dict_errc::file_not_found)
      return fail(code, call + " requires an existing file: " + e.message, std::string{}, e.code);
    std::string message = call + " requires tensor '" + key + "' (shape " + std::string{role} + "): " + e.message;
    if (code == state_dict_errc::dtype_mismatch)
      message += "; a gpt_model<float, Cfg> reads float32 state dicts, a gpt_model<double, Cfg> float64 ones";
    return fail(code, std::move(message), key, e.code);
  }

  // A read in pass 2 failed: everything had been checked, so the file changed or could not be read.
  bool load_failed(const std::string& key, const npy_error& e, bool written) {
    std::string message = call + " could not read tensor '" + key +
                          "' again after the whole archive had been checked (did the file change?): " + e.message;
    message += written ? "; the model is partly loaded: the tensors before '" + key +
                             "' (in state-dict order) hold the file's values, it and the tensors after it their "
                             "previous values"
                       : std::string{"; the model is unchanged"};
    return fail(state_dict_code_of(e.code), std::move(message), key, e.code, written);
  }
};

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
    const auto scratch = std::make_unique<matrix<T, Ctx, Ctx>>();
    const auto r = load_npz(pass->path, key, *scratch);
    if (r) return causal(key, *scratch);
    if (r.error().code == npy_errc::zip_entry_not_found) return true;
    if (r.error().code != npy_errc::dtype_mismatch) return pass->reader_failed(key, role, r.error());
    using other = std::conditional_t<std::is_same_v<T, float>, double, float>;
    const auto widened = std::make_unique<matrix<other, Ctx, Ctx>>();
    const auto again = load_npz(pass->path, key, *widened);
    if (again) return causal(key, *widened);
    // Neither float dtype: report the first attempt, which asked for the model's own.
    return pass->reader_failed(key, role, again.error().code == npy_errc::dtype_mismatch ? r.error() : again.error());
  }

 private:
  template <class M>
  bool check(const std::string& key, std::string_view role) {
    const auto scratch = std::make_unique<M>();
    const auto r = load_npz(pass->path, key, *scratch);
    return r ? true : pass->reader_failed(key, role, r.error());
  }

  template <class U, std::size_t Ctx>
  bool causal(const std::string& key, const matrix<U, Ctx, Ctx>& m) {
    for (std::size_t i = 0; i < Ctx; ++i)
      for (std::size_t j = 0; j < Ctx; ++j) {
        const U expected = j > i ? U{1} : U{0};
        if (m.elems[i * Ctx + j] == expected) continue;
        char found[64];
        std::snprintf(found, sizeof found, "%.9g", static_cast<double>(m.elems[i * Ctx + j]));
        return pass->fail(state_dict_errc::mask_mismatch,
                          pass->call + " requires tensor '" + key +
                              "', when present, to be the causal mask triu(ones(context_length, context_length), "
                              "1), since the library's attention is always causal: " +
                              pass->path + ": found " + found + " at (" + std::to_string(i) + ", " + std::to_string(j) +
                              "), where the causal mask has " + (j > i ? "1" : "0"),
                          key, std::nullopt);
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
    if (!r) return pass->load_failed(key, r.error(), written);
    written = true;
    return true;
  }
  template <std::size_t In, std::size_t Out>
  bool transposed(const std::string& key, std::string_view, matrix<T, In, Out>& target) {
    const auto linear = std::make_unique<matrix<T, Out, In>>();  // nn.Linear's out x in
    const auto r = load_npz(pass->path, key, *linear);
    if (!r) return pass->load_failed(key, r.error(), written);
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

// One block's tensors, in state-dict order (a module's own buffers, then its children's).
template <class V, class T, std::size_t D, std::size_t NumHeads, std::size_t Ctx, bool QkvBias>
bool visit_state_dict_block(V& visitor, std::size_t index, transformer_block<T, D, NumHeads, Ctx, QkvBias>& block) {
  constexpr std::string_view square = "emb_dim x emb_dim, nn.Linear's out x in";
  constexpr std::string_view row = "emb_dim";
  const state_dict_block_keys key{index};
  auto& att = block.att;
  if (!visitor.template mask<Ctx>(key("att.mask"))) return false;
  if (!visitor.transposed(key("att.W_query.weight"), square, att.W_query)) return false;
  if constexpr (QkvBias)
    if (!visitor.same(key("att.W_query.bias"), row, att.b_query)) return false;
  if (!visitor.transposed(key("att.W_key.weight"), square, att.W_key)) return false;
  if constexpr (QkvBias)
    if (!visitor.same(key("att.W_key.bias"), row, att.b_key)) return false;
  if (!visitor.transposed(key("att.W_value.weight"), square, att.W_value)) return false;
  if constexpr (QkvBias)
    if (!visitor.same(key("att.W_value.bias"), row, att.b_value)) return false;
  return visitor.transposed(key("att.out_proj.weight"), square, att.W_out) &&
         visitor.same(key("att.out_proj.bias"), row, att.b_out) &&
         visitor.transposed(key("ff.layers.0.weight"), "4 emb_dim x emb_dim, nn.Linear's out x in",
                            block.ff.expand.weight) &&
         visitor.same(key("ff.layers.0.bias"), "4 emb_dim", block.ff.expand.bias) &&
         visitor.transposed(key("ff.layers.2.weight"), "emb_dim x 4 emb_dim, nn.Linear's out x in",
                            block.ff.project.weight) &&
         visitor.same(key("ff.layers.2.bias"), row, block.ff.project.bias) &&
         visitor.same(key("norm1.scale"), row, block.norm1.scale) &&
         visitor.same(key("norm1.shift"), row, block.norm1.shift) &&
         visitor.same(key("norm2.scale"), row, block.norm2.scale) &&
         visitor.same(key("norm2.shift"), row, block.norm2.shift);
}

template <class V>
struct visit_state_dict_blocks {
  V* visitor;
  std::size_t* index;
  bool* ok;
  template <class Block>
  void operator()(Block& block) const {
    if (*ok) *ok = visit_state_dict_block(*visitor, *index, block);
    ++*index;
  }
};

// Every tensor of the model, in state-dict order, until the visitor returns false.
template <class V, class T, gpt_config Cfg>
bool visit_state_dict(V& visitor, gpt_model<T, Cfg>& model) {
  if (!visitor.same("tok_emb.weight", "vocab_size x emb_dim", model.tok_emb.weight) ||
      !visitor.same("pos_emb.weight", "context_length x emb_dim", model.pos_emb.weight))
    return false;
  std::size_t index = 0;
  bool ok = true;
  boost::hana::for_each(model.trf_blocks, visit_state_dict_blocks<V>{&visitor, &index, &ok});
  return ok && visitor.same("final_norm.scale", "emb_dim", model.final_norm.scale) &&
         visitor.same("final_norm.shift", "emb_dim", model.final_norm.shift) &&
         visitor.transposed("out_head.weight", "vocab_size x emb_dim, nn.Linear's out x in", model.out_head);
}

// True if the archive has no entry `key`; otherwise records an unexpected_tensor failure (or the
// reader's failure to read the archive at all).
inline bool state_dict_absent(state_dict_pass& pass, const std::string& key, const std::string& why) {
  matrix<float, 1, 1> probe;  // any entry found fails to load into it (or loads, if 1 x 1): either way, it exists
  const auto r = load_npz(pass.path, key, probe);
  if (!r && r.error().code == npy_errc::zip_entry_not_found) return true;
  if (!r && (r.error().code == npy_errc::file_not_found || r.error().code == npy_errc::file_unreadable))
    return pass.fail(state_dict_code_of(r.error().code), pass.call + " requires a readable file: " + r.error().message,
                     key, r.error().code);
  return pass.fail(state_dict_errc::unexpected_tensor,
                   pass.call + " requires no tensor '" + key + "': " + pass.path + " has one, but " + why, key,
                   std::nullopt);
}

// The tensors of the models a Cfg is most easily confused with, which the model would ignore.
template <gpt_config Cfg>
bool state_dict_has_no_strangers(state_dict_pass& pass) {
  if constexpr (!Cfg.qkv_bias) {
    const std::string why =
        "the model's gpt_config has qkv_bias = false and this is a bias of the query, key or value "
        "projection (a model with qkv_bias = True, as OpenAI's GPT-2 weights need): use a gpt_config with "
        "qkv_bias = true";
    for (const std::string_view name : {"att.W_query.bias", "att.W_key.bias", "att.W_value.bias"})
      if (!state_dict_absent(pass, state_dict_block_key(0, name), why)) return false;
  }
  return state_dict_absent(pass, state_dict_block_key(Cfg.n_layers, "att.W_query.weight"),
                           "the model's gpt_config has n_layers = " + std::to_string(Cfg.n_layers) +
                               ", and the archive has more blocks") &&
         state_dict_absent(pass, "out_head.bias",
                           "the book's out_head has no bias (nn.Linear(emb_dim, vocab_size, "
                           "bias=False))");
}

}  // namespace detail

/// Loads the state dict at `path` (an .npz of `model.state_dict()` written by np.savez, e.g. by
/// tools/export_state_dict.py) into `model`, in place: the model is written only once the
/// whole archive has been checked, so on any error in the file it is left unchanged (see
/// state_dict_error::model_modified for the one exception, a read failing after the checks).
/// A gpt_model<float, Cfg> reads float32 ('<f4') arrays, a gpt_model<double, Cfg> float64 ('<f8').
template <class T, gpt_config Cfg>
requires std::same_as<T, float> || std::same_as<T, double> state_dict_result
load_state_dict(gpt_model<T, Cfg>& model, const std::filesystem::path& path) {
  detail::state_dict_pass pass{path.string(), "load_state_dict(model, \"" + path.string() + "\")", std::nullopt};
  detail::state_dict_checker<T> checker{&pass};
  if (!detail::visit_state_dict(checker, model) || !detail::state_dict_has_no_strangers<Cfg>(pass))
    return std::move(*pass.failure);
  detail::state_dict_loader<T> loader{&pass};
  if (!detail::visit_state_dict(loader, model)) return std::move(*pass.failure);
  return {};
}

}  // namespace static_attention
