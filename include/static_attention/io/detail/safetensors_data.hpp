// SPDX-License-Identifier: BSL-1.0
// The data of a safetensors file as the loader (safetensors.hpp) reads them: dtypes decoded
// exactly, the book's and Hugging Face's GPT-2 names resolved to the model's tensors, and each
// tensor read in bounded chunks of whole rows straight into the model.
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/result.hpp>
#include <static_attention/io/detail/load_error.hpp>
#include <static_attention/io/detail/npy_file.hpp>
#include <static_attention/io/detail/npy_zip.hpp>
#include <static_attention/io/detail/safetensors_header.hpp>
#include <static_attention/io/detail/state_dict_keys.hpp>
#include <static_attention/nn/gpt.hpp>

namespace static_attention {
namespace detail {

// A tensor's dtype as the loader decodes it.
enum class safetensors_kind { f32, f64, f16, bf16, other };

inline safetensors_kind safetensors_kind_of(std::string_view dtype) noexcept {
  return dtype == "F32"    ? safetensors_kind::f32
         : dtype == "F64"  ? safetensors_kind::f64
         : dtype == "F16"  ? safetensors_kind::f16
         : dtype == "BF16" ? safetensors_kind::bf16
                           : safetensors_kind::other;
}

// IEEE 754 binary16 to binary32: exact.
inline float safetensors_half(std::uint32_t h) noexcept {
  const std::uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  if (mantissa == 0) return std::bit_cast<float>(sign);
  std::uint32_t e = 113;  // a subnormal: normalise it
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --e;
  }
  return std::bit_cast<float>(sign | (e << 23) | ((mantissa & 0x3ffu) << 13));
}

// One little-endian element of `kind` at p, as T (the caller has checked the conversion is exact).
template <class T>
T safetensors_decode(safetensors_kind kind, const std::byte* p) noexcept {
  const auto le = [p](std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
    return v;
  };
  switch (kind) {
    case safetensors_kind::f64:
      return static_cast<T>(std::bit_cast<double>(le(8)));
    case safetensors_kind::f16:
      return static_cast<T>(safetensors_half(static_cast<std::uint32_t>(le(2))));
    case safetensors_kind::bf16:
      return static_cast<T>(std::bit_cast<float>(static_cast<std::uint32_t>(le(2)) << 16));
    default:
      return static_cast<T>(std::bit_cast<float>(static_cast<std::uint32_t>(le(4))));
  }
}

// True if T holds every value of the dtype exactly.
template <class T>
bool safetensors_exact(safetensors_kind kind) noexcept {
  return kind == safetensors_kind::f32 || kind == safetensors_kind::f16 || kind == safetensors_kind::bf16 ||
         (kind == safetensors_kind::f64 && std::is_same_v<T, double>);
}

// How the file names the model's tensors.
enum class safetensors_naming { book, hugging_face };

// A parsed, checked file: the header, its tensors by name, where the data begin, the naming.
struct safetensors_file {
  safetensors_header header;
  std::vector<const safetensors_tensor*> by_name;
  std::uint64_t data_at = 0;
  safetensors_naming naming = safetensors_naming::book;
  std::string prefix;  // "transformer." or "", for Hugging Face's names

  void index() {
    by_name.clear();
    for (const auto& t : header.tensors) by_name.push_back(&t);
    std::sort(by_name.begin(), by_name.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  }
  const safetensors_tensor* find(std::string_view name) const {
    const auto it = std::lower_bound(by_name.begin(), by_name.end(), name,
                                     [](const safetensors_tensor* t, std::string_view n) { return t->name < n; });
    return it != by_name.end() && (*it)->name == name ? *it : nullptr;
  }
};

// Where a tensor of the model lies in the file: the file's tensor `name` of `shape` (1-D or 2-D),
// whose columns from `col_begin` on are the model's (a slice of c_attn), or which is the model's
// transposed (nn.Linear's out x in, and a tied head).
struct safetensors_source {
  const safetensors_tensor* tensor = nullptr;  // null: the file has none
  std::string name;
  std::vector<std::uint64_t> shape;
  std::uint64_t col_begin = 0;
  bool transpose = false;
};

// Hugging Face's GPT-2 name of the book's key (its block prefix "h.<i>." included), the slot of
// the model's columns in the file's (q, k, v of c_attn) and how many slots there are; Conv1D
// weights are in x out, as the model's, so nothing but the head is transposed.
struct hf_place {
  std::string name;
  std::size_t slot = 0, slots = 1;
  bool transpose = false;
};

inline hf_place hf_gpt2_place(std::string_view key) {
  if (key == "tok_emb.weight") return {"wte.weight"};
  if (key == "pos_emb.weight") return {"wpe.weight"};
  if (key == "final_norm.scale") return {"ln_f.weight"};
  if (key == "final_norm.shift") return {"ln_f.bias"};
  if (key == "out_head.weight") return {"lm_head.weight", 0, 1, true};
  constexpr std::string_view blocks = "trf_blocks.";
  const std::size_t dot = key.find('.', blocks.size());
  const std::string block = "h." + std::string{key.substr(blocks.size(), dot - blocks.size())} + ".";
  const std::string_view rest = key.substr(dot + 1);
  struct row {
    std::string_view book, hf;
    std::size_t slot, slots;
  };
  constexpr row table[] = {{"att.W_query.weight", "attn.c_attn.weight", 0, 3},
                           {"att.W_key.weight", "attn.c_attn.weight", 1, 3},
                           {"att.W_value.weight", "attn.c_attn.weight", 2, 3},
                           {"att.W_query.bias", "attn.c_attn.bias", 0, 3},
                           {"att.W_key.bias", "attn.c_attn.bias", 1, 3},
                           {"att.W_value.bias", "attn.c_attn.bias", 2, 3},
                           {"att.out_proj.weight", "attn.c_proj.weight", 0, 1},
                           {"att.out_proj.bias", "attn.c_proj.bias", 0, 1},
                           {"ff.layers.0.weight", "mlp.c_fc.weight", 0, 1},
                           {"ff.layers.0.bias", "mlp.c_fc.bias", 0, 1},
                           {"ff.layers.2.weight", "mlp.c_proj.weight", 0, 1},
                           {"ff.layers.2.bias", "mlp.c_proj.bias", 0, 1},
                           {"norm1.scale", "ln_1.weight", 0, 1},
                           {"norm1.shift", "ln_1.bias", 0, 1},
                           {"norm2.scale", "ln_2.weight", 0, 1},
                           {"norm2.shift", "ln_2.bias", 0, 1}};
  for (const row& r : table)
    if (r.book == rest) return {block + std::string{r.hf}, r.slot, r.slots};
  return {block + std::string{rest}};  // not reached: the table covers every key of a block
}

// The source of the model's R x C tensor `key`, which the book's state dict stores transposed
// (out x in) if `linear`.
inline safetensors_source safetensors_resolve(const safetensors_file& f, const std::string& key, std::size_t r,
                                              std::size_t c, bool linear) {
  safetensors_source s;
  if (f.naming == safetensors_naming::book) {
    s.name = key;
    s.transpose = linear;
  } else {
    hf_place place = hf_gpt2_place(key);
    s.transpose = place.transpose;
    s.name = key == "out_head.weight" ? place.name : f.prefix + place.name;
    if (key == "out_head.weight" && f.find(s.name) == nullptr) s.name = f.prefix + "wte.weight";  // tied
    s.col_begin = place.slot * c;
    c *= place.slots;
  }
  if (s.transpose)
    s.shape = {c, r};
  else if (r == 1)
    s.shape = {c};
  else
    s.shape = {r, c};
  s.tensor = f.find(s.name);
  return s;
}

inline std::string safetensors_shape_string(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// A source's tensor is there, of a dtype T holds exactly and of the shape given ([n] and [1, n]
// both do for a row).
template <class T>
bool safetensors_check_source(state_dict_pass& pass, const safetensors_source& s, std::string_view role) {
  const std::string head = "tensor '" + s.name + "' (" + std::string{role} + ", " + safetensors_shape_string(s.shape);
  if (s.tensor == nullptr) return pass.fail(errc::missing_tensor, head + "): found no such tensor", s.name);
  if (!safetensors_exact<T>(safetensors_kind_of(s.tensor->dtype)))
    return pass.fail(errc::dtype_mismatch,
                     head + "): found dtype " + s.tensor->dtype + "; a gpt_model<" +
                         (std::is_same_v<T, float> ? "float" : "double") + ", Cfg> reads F32, F16, BF16" +
                         (std::is_same_v<T, float> ? "" : ", F64"),
                     s.name);
  const auto& shape = s.tensor->shape;
  const bool row = s.shape.size() == 1 && shape.size() == 2 && shape[0] == 1 && shape[1] == s.shape[0];
  if (shape != s.shape && !row)
    return pass.fail(errc::shape_mismatch, head + "): found shape " + safetensors_shape_string(shape), s.name);
  return true;
}

// Reads a source's tensor in chunks of whole rows (at most 1 MiB, or one row) and hands each row
// to `row(index, bytes)`; false with the reader's error on a failed read.
template <class Source, class Row>
bool safetensors_read_rows(Source& src, const safetensors_file& f, const safetensors_tensor& t, const npy_context& ctx,
                           npy_error& failure, Row&& row) {
  const std::uint64_t rows = t.shape.size() == 2 ? t.shape[0] : 1;
  const std::uint64_t row_bytes = rows == 0 ? 0 : (t.end - t.begin) / rows;
  if (row_bytes == 0) return true;
  const std::uint64_t per_chunk = std::max<std::uint64_t>(1, (std::uint64_t{1} << 20) / row_bytes);
  for (std::uint64_t first = 0; first < rows; first += per_chunk) {
    const std::uint64_t n = std::min(per_chunk, rows - first);
    auto bytes = src.read(f.data_at + t.begin + first * row_bytes, static_cast<std::size_t>(n * row_bytes), ctx);
    if (!bytes) {
      failure = bytes.error();
      return false;
    }
    for (std::uint64_t i = 0; i < n; ++i) row(first + i, bytes.value().data() + i * row_bytes);
  }
  return true;
}

// Writes a checked source's tensor into the model's R x C elements.
template <class T, class Source>
bool safetensors_copy(Source& src, const safetensors_file& f, const safetensors_source& s, T* target, std::size_t c,
                      const npy_context& ctx, npy_error& failure) {
  const safetensors_tensor& t = *s.tensor;
  const safetensors_kind kind = safetensors_kind_of(t.dtype);
  const std::size_t width = t.width, cols = static_cast<std::size_t>(t.shape.back());
  return safetensors_read_rows(src, f, t, ctx, failure, [&](std::uint64_t fr, const std::byte* p) {
    const auto file_row = static_cast<std::size_t>(fr);
    if (s.transpose) {  // the file's row is the model's column
      for (std::size_t k = 0; k < cols; ++k) target[k * c + file_row] = safetensors_decode<T>(kind, p + k * width);
    } else {
      const std::byte* from = p + static_cast<std::size_t>(s.col_begin) * width;
      for (std::size_t k = 0; k < c; ++k) target[file_row * c + k] = safetensors_decode<T>(kind, from + k * width);
    }
  });
}

}  // namespace detail
}  // namespace static_attention
