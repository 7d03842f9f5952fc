// Weights in from NumPy: .npy files (format versions 1.0, 2.0 and 3.0) and the .npz archives
// np.savez writes, read into a matrix or tensor whose type states the shape and dtype the file
// must have:
//   auto w = static_attention::load_npy<matrix<float, 3, 2>>("w_query.npy");
//   if (!w) { std::puts(w.error().message.c_str()); return 1; }
//   use(w.value());
//
// Rules, all checked, all reported as an npy_error naming the file, the expectation and the finding:
//  - dtype: float reads '<f4' only, double reads '<f8' only; there is no silent conversion.
//  - order: C order only (fortran_order False).
//  - shape: matrix<T, R, C> reads (R, C); matrix<T, 1, C> also reads the 1-D shape (C,), as a
//    PyTorch bias saves; tensor<T, B, N, D> reads (B, N, D). Nothing else, in particular no
//    (R,) for an R x 1 column, since a 1-D array is a row everywhere in numpy's broadcasting.
//  - size: exactly the bytes the shape needs; a shorter input or trailing bytes are errors.
//  - .npz: stored (uncompressed) entries only, i.e. np.savez, not np.savez_compressed.
// A result holds a value only when all of this holds; the value is never partly filled.
//
// An I/O header: it uses <string>, <vector> and <cstdio>, and no core header includes it, so
// models that embed their weights (see tools/embed_weights.cpp) never depend on it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <static_attention/detail/npy_file.hpp>
#include <static_attention/detail/npy_header.hpp>
#include <static_attention/detail/npy_result.hpp>
#include <static_attention/detail/npy_zip.hpp>
#include <static_attention/matrix.hpp>
#include <static_attention/shape.hpp>
#include <static_attention/tensor.hpp>

namespace static_attention {

/// A matrix or tensor type that .npy data can be read into: elements float ('<f4') or double ('<f8').
template <class M>
concept npy_loadable = dense<M> && std::is_same_v<M, std::remove_cvref_t<M>> &&
    (std::is_same_v<value_type_t<M>, float> || std::is_same_v<value_type_t<M>, double>);

namespace detail {

static_assert(std::numeric_limits<float>::is_iec559 && sizeof(float) == 4 && std::numeric_limits<double>::is_iec559 &&
                  sizeof(double) == 8,
              "npy.hpp reads IEEE 754 binary32 and binary64 data into float and double");

template <class T>
inline constexpr std::string_view npy_descr_of = std::is_same_v<T, float> ? "<f4" : "<f8";

// Decodes one little-endian element, on hosts of either byte order.
template <class T>
T npy_decode(const std::byte* p) noexcept {
  using bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  bits u = 0;
  for (std::size_t i = sizeof(T); i-- > 0;) u = static_cast<bits>((u << 8) | std::to_integer<bits>(p[i]));
  return std::bit_cast<T>(u);
}

template <npy_loadable M>
std::vector<std::size_t> npy_expected_shape() {
  if constexpr (tensor_type<M>)
    return {batch_v<M>, rows_v<M>, cols_v<M>};
  else
    return {rows_v<M>, cols_v<M>};
}

// "matrix<float, 3, 2> (dtype '<f4', shape (3, 2))": the expectation every message states.
template <npy_loadable M>
std::string npy_expectation() {
  using T = value_type_t<M>;
  std::string s = tensor_type<M> ? "tensor<" : "matrix<";
  s += std::is_same_v<T, float> ? "float" : "double";
  for (const std::size_t d : npy_expected_shape<M>()) s += ", " + std::to_string(d);
  s += "> (dtype '";
  s += npy_descr_of<T>;
  s += "', shape " + npy_shape_string(npy_expected_shape<M>());
  if constexpr (matrix_type<M>)
    if (rows_v<M> == 1) s += " or (" + std::to_string(cols_v<M>) + ",)";
  return s + ")";
}

template <npy_loadable M>
bool npy_shape_matches(const std::vector<std::size_t>& shape) {
  if constexpr (matrix_type<M>)
    if (rows_v<M> == 1 && shape.size() == 1 && shape[0] == cols_v<M>) return true;
  return shape == npy_expected_shape<M>();
}

inline std::string npy_dtype_finding(std::string_view found, std::string_view wanted) {
  std::string s = "found dtype '" + std::string{found} + "'";
  if (wanted == "<f4" && found == "<f8")
    s += " (float64); load it into a double matrix, or save a.astype(np.float32)";
  else if (wanted == "<f8" && found == "<f4")
    s += " (float32); load it into a float matrix, or save a.astype(np.float64)";
  else if (found == ">f4" || found == ">f8")
    s += " (big-endian); save a.astype('" + std::string{wanted} + "')";
  return s;
}

inline std::optional<npy_error> npy_check_layout(const npy_header& h, const npy_context& ctx) {
  if (h.fortran_order)
    return npy_fail(npy_errc::fortran_order, ctx,
                    "found fortran_order True (column-major data); save np.ascontiguousarray(a)");
  return std::nullopt;
}

// The data must be exactly `need` bytes. `cut`: the reader stopped early, so the input is longer
// than what we hold.
inline std::optional<npy_error> npy_check_data_size(std::size_t have, std::size_t need, bool cut,
                                                    const npy_context& ctx) {
  if (have < need)
    return npy_fail(npy_errc::truncated_data, ctx,
                    "found " + std::to_string(have) + " of the " + std::to_string(need) + " data bytes");
  if (have > need || cut)
    return npy_fail(npy_errc::trailing_bytes, ctx,
                    "found " + std::string{cut ? "at least " : ""} + std::to_string(have - need + (cut ? 1 : 0)) +
                        " bytes after the " + std::to_string(need) + " data bytes");
  return std::nullopt;
}

template <npy_loadable M>
npy_result<M> parse_npy_as(std::span<const std::byte> bytes, const npy_context& ctx, bool cut) {
  using T = value_type_t<M>;
  auto header = parse_npy_header(bytes, ctx);
  if (!header) return header.error();
  const npy_header& h = header.value();
  if (h.descr != npy_descr_of<T>)
    return npy_fail(npy_errc::dtype_mismatch, ctx, npy_dtype_finding(h.descr, npy_descr_of<T>));
  if (auto e = npy_check_layout(h, ctx)) return std::move(*e);
  if (!npy_shape_matches<M>(h.shape))
    return npy_fail(npy_errc::shape_mismatch, ctx, "found shape " + npy_shape_string(h.shape));
  if (auto e = npy_check_data_size(bytes.size() - h.data_offset, M::size * sizeof(T), cut, ctx)) return std::move(*e);
  // Everything is checked: decoding cannot fail from here on. Decode into the result itself, so
  // that a large matrix is not copied on the way out.
  npy_result<M> result(std::in_place);
  M& m = result.value();
  const std::byte* p = bytes.data() + h.data_offset;
  for (std::size_t k = 0; k < M::size; ++k) m.elems[k] = npy_decode<T>(p + k * sizeof(T));
  return result;
}

}  // namespace detail

/// Reads a .npy image held in memory into M; `name` names the input in error messages.
template <npy_loadable M>
npy_result<M> parse_npy(std::span<const std::byte> bytes, std::string_view name = "<memory>") {
  const std::string expected = detail::npy_expectation<M>();
  return detail::parse_npy_as<M>(bytes, detail::npy_context{name, expected}, false);
}

/// Reads the .npy file at `path` into M:
/// `auto w = load_npy<matrix<float, 3, 2>>("w_query.npy");`
template <npy_loadable M>
npy_result<M> load_npy(std::string_view path) {
  const std::string expected = detail::npy_expectation<M>();
  const detail::npy_context ctx{path, expected};
  // The longest valid file: the largest preamble and header numpy allows, then the data. Reading
  // one byte more is enough to tell trailing bytes, whatever the file's size.
  const std::size_t max_bytes = 12 + detail::npy_max_header_size + M::size * sizeof(value_type_t<M>);
  auto file = detail::read_file_bytes(std::string{path}, max_bytes, ctx);
  if (!file) return file.error();
  const auto& bytes = file.value().bytes;
  const std::span<const std::byte> view{bytes.data(), file.value().cut ? max_bytes : bytes.size()};
  return detail::parse_npy_as<M>(view, ctx, file.value().cut);
}

/// Reads the entry `entry` (or `entry` + ".npy") of an .npz archive held in memory into M.
template <npy_loadable M>
npy_result<M> parse_npz(std::span<const std::byte> archive, std::string_view entry,
                        std::string_view name = "<memory>") {
  const std::string expected = "entry '" + std::string{entry} + "' as " + detail::npy_expectation<M>();
  std::string entry_name;
  auto data = detail::find_zip_entry(archive, entry, detail::npy_context{name, expected}, entry_name);
  if (!data) return data.error();
  const std::string inner_name = std::string{name} + "/" + entry_name;
  return parse_npy<M>(data.value(), inner_name);
}

/// Reads one array of an .npz archive written by np.savez into M:
/// `auto wq = load_npz<matrix<float, 2, 3>>("weights.npz", "W_query");`
template <npy_loadable M>
npy_result<M> load_npz(std::string_view path, std::string_view entry) {
  const std::string expected = "entry '" + std::string{entry} + "' as " + detail::npy_expectation<M>();
  auto file =
      detail::read_file_bytes(std::string{path}, static_cast<std::size_t>(-1), detail::npy_context{path, expected});
  if (!file) return file.error();
  return parse_npz<M>(file.value().bytes, entry, path);
}

/// The element types of npy_array.
enum class npy_dtype { f4, f8 };

/// A .npy array whose shape is known only at run time: for tools such as the weight embedder,
/// which learn the shape from the file. Models use load_npy with a fixed-shape type instead.
struct npy_array {
  npy_header header;
  npy_dtype dtype = npy_dtype::f4;
  std::vector<float> f4;   ///< the elements, row-major, if dtype is f4
  std::vector<double> f8;  ///< the elements, row-major, if dtype is f8
};

/// Reads a .npy image of dtype '<f4' or '<f8', C order, of any shape.
inline npy_result<npy_array> parse_npy_array(std::span<const std::byte> bytes, std::string_view name = "<memory>") {
  const detail::npy_context ctx{name, "an array of dtype '<f4' or '<f8'"};
  auto header = detail::parse_npy_header(bytes, ctx);
  if (!header) return header.error();
  npy_array a;
  a.header = std::move(header).value();
  const npy_header& h = a.header;
  if (h.descr != "<f4" && h.descr != "<f8")
    return detail::npy_fail(npy_errc::dtype_mismatch, ctx, detail::npy_dtype_finding(h.descr, ""));
  a.dtype = h.descr == "<f4" ? npy_dtype::f4 : npy_dtype::f8;
  if (auto e = detail::npy_check_layout(h, ctx)) return std::move(*e);
  const std::size_t width = a.dtype == npy_dtype::f4 ? 4 : 8;
  std::size_t count = 1;
  for (const std::size_t d : h.shape) {
    if (d != 0 && count > std::numeric_limits<std::size_t>::max() / width / d)
      return detail::npy_fail(npy_errc::shape_mismatch, ctx,
                              "found shape " + detail::npy_shape_string(h.shape) + ", too large for memory");
    count *= d;
  }
  if (auto e = detail::npy_check_data_size(bytes.size() - h.data_offset, count * width, false, ctx))
    return std::move(*e);
  const std::byte* p = bytes.data() + h.data_offset;
  if (a.dtype == npy_dtype::f4) {
    a.f4.resize(count);
    for (std::size_t k = 0; k < count; ++k) a.f4[k] = detail::npy_decode<float>(p + k * 4);
  } else {
    a.f8.resize(count);
    for (std::size_t k = 0; k < count; ++k) a.f8[k] = detail::npy_decode<double>(p + k * 8);
  }
  return a;
}

/// Reads the .npy file at `path` of dtype '<f4' or '<f8', C order, of any shape.
inline npy_result<npy_array> load_npy_array(std::string_view path) {
  const detail::npy_context ctx{path, "an array of dtype '<f4' or '<f8'"};
  auto file = detail::read_file_bytes(std::string{path}, static_cast<std::size_t>(-1), ctx);
  if (!file) return file.error();
  return parse_npy_array(file.value().bytes, path);
}

}  // namespace static_attention
