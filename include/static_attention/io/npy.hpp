// SPDX-License-Identifier: BSL-1.0
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
// Memory: the readers decode into the result (or into the matrix passed to `load_npy(path, m)`)
// where it stays, so their stack frames do not depend on the matrix size (a few KiB; tested by
// tests/hardening). Files are read header first, then only the data bytes the header promises,
// plus one to tell trailing bytes, into one heap buffer that is freed before returning: an endless
// or huge input is never read whole. .npz archives are read from their end (they must be regular
// files): the end record, the central directory one record at a time, and the one entry.
//
// An I/O header: it uses <string>, <vector> and <cstdio>, and no core header includes it, so
// models that embed their weights (see tools/embed_weights.cpp) never depend on it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/shape.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/io/detail/npy_file.hpp>
#include <static_attention/io/detail/npy_header.hpp>
#include <static_attention/io/detail/npy_result.hpp>
#include <static_attention/io/detail/npy_zip.hpp>

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

// What a fixed-shape type asks of a .npy input, as a value: everything below but the decoding
// works on it, so a program reading many shapes instantiates the checks and messages once, not
// once per shape (loading GPT-2's 148 tensors is 15 distinct shapes).
struct npy_spec {
  std::string_view descr;  // "<f4" or "<f8"
  bool tensor = false;     // tensor<T, B, N, D>: shape (B, N, D); else matrix<T, R, C>: (R, C)
  std::size_t batch = 1;
  std::size_t rows = 0;
  std::size_t cols = 0;

  constexpr std::size_t data_bytes() const noexcept {
    return batch * rows * cols * (descr == "<f4" ? std::size_t{4} : std::size_t{8});
  }
  // The longest .npy input: the largest preamble and header numpy allows, then the data.
  constexpr std::size_t max_bytes() const noexcept { return 12 + npy_max_header_size + data_bytes(); }
};

template <npy_loadable M>
constexpr npy_spec npy_spec_for() noexcept {
  if constexpr (tensor_type<M>)
    return {npy_descr_of<value_type_t<M>>, true, batch_v<M>, rows_v<M>, cols_v<M>};
  else
    return {npy_descr_of<value_type_t<M>>, false, 1, rows_v<M>, cols_v<M>};
}
template <npy_loadable M>
inline constexpr npy_spec npy_spec_of = npy_spec_for<M>();

// Decodes little-endian elements, on hosts of either byte order.
template <class T>
T npy_decode(const std::byte* p) noexcept {
  using bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  bits u = 0;
  for (std::size_t i = sizeof(T); i-- > 0;) u = static_cast<bits>((u << 8) | std::to_integer<bits>(p[i]));
  return std::bit_cast<T>(u);
}
template <class T>
void npy_decode_all(const std::byte* p, T* out, std::size_t n) noexcept {
  for (std::size_t k = 0; k < n; ++k) out[k] = npy_decode<T>(p + k * sizeof(T));
}

inline std::vector<std::size_t> npy_expected_shape(const npy_spec& spec) {
  if (spec.tensor) return {spec.batch, spec.rows, spec.cols};
  return {spec.rows, spec.cols};
}

// "matrix<float, 3, 2> (dtype '<f4', shape (3, 2))": the expectation every message states.
inline std::string npy_expectation(const npy_spec& spec) {
  std::string s = spec.tensor ? "tensor<" : "matrix<";
  s += spec.descr == "<f4" ? "float" : "double";
  for (const std::size_t d : npy_expected_shape(spec)) s += ", " + std::to_string(d);
  s += "> (dtype '";
  s += spec.descr;
  s += "', shape " + npy_shape_string(npy_expected_shape(spec));
  if (!spec.tensor && spec.rows == 1) s += " or (" + std::to_string(spec.cols) + ",)";
  return s + ")";
}

inline bool npy_shape_matches(const npy_spec& spec, const std::vector<std::size_t>& shape) {
  if (!spec.tensor && spec.rows == 1 && shape.size() == 1 && shape[0] == spec.cols) return true;
  return shape == npy_expected_shape(spec);
}

// What was found instead of `wanted` ('<f4', '<f8', or empty when either will do), and the
// numpy call that writes what is wanted.
inline std::string npy_dtype_finding(std::string_view found, std::string_view wanted) {
  std::string s = "found dtype '" + std::string{found} + "'";
  if (wanted == "<f4" && found == "<f8") {
    s += " (float64); load it into a double matrix, or save a.astype(np.float32)";
  } else if (wanted == "<f8" && found == "<f4") {
    s += " (float32); load it into a float matrix, or save a.astype(np.float64)";
  } else if (found == ">f4" || found == ">f8") {
    // Either width will do: the little-endian dtype of the same width.
    const std::string_view little = !wanted.empty() ? wanted : found == ">f4" ? "<f4" : "<f8";
    s += " (big-endian); save a.astype('" + std::string{little} + "')";
  } else {
    s += wanted == "<f4"   ? "; save a.astype(np.float32)"
         : wanted == "<f8" ? "; save a.astype(np.float64)"
                           : "; save a.astype(np.float32) or a.astype(np.float64)";
  }
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

// dtype, order and shape: what a header must state for `spec`.
inline std::optional<npy_error> npy_check_header_as(const npy_spec& spec, const npy_header& h, const npy_context& ctx) {
  if (h.descr != spec.descr) return npy_fail(npy_errc::dtype_mismatch, ctx, npy_dtype_finding(h.descr, spec.descr));
  if (auto e = npy_check_layout(h, ctx)) return e;
  if (!npy_shape_matches(spec, h.shape))
    return npy_fail(npy_errc::shape_mismatch, ctx, "found shape " + npy_shape_string(h.shape));
  return std::nullopt;
}

// Every check of a .npy image read as `spec`: the offset of its data, or the first problem.
inline npy_result<std::size_t> npy_check_as(const npy_spec& spec, std::span<const std::byte> bytes,
                                            const npy_context& ctx, bool cut) {
  auto header = parse_npy_header(bytes, ctx);
  if (!header) return header.error();
  const npy_header& h = header.value();
  if (auto e = npy_check_header_as(spec, h, ctx)) return std::move(*e);
  if (auto e = npy_check_data_size(bytes.size() - h.data_offset, spec.data_bytes(), cut, ctx)) return std::move(*e);
  return h.data_offset;
}

// Decodes checked data into a matrix or tensor.
template <npy_loadable M>
struct npy_decoder {
  const std::byte* data;
  void operator()(M& m) const noexcept { npy_decode_all(data, &m.elems[0], M::size); }
};

// Both return the result as a prvalue, and no npy_result<M> is ever named: so no compiler needs
// a temporary M on its stack, whatever its return-value optimisation does.
template <npy_loadable M>
npy_result<M> parse_npy_as(std::span<const std::byte> bytes, const npy_context& ctx, bool cut) {
  const auto at = npy_check_as(npy_spec_of<M>, bytes, ctx, cut);
  if (!at) return at.error();
  // Everything is checked: decoding cannot fail from here on, and writes the caller's result.
  return npy_result<M>(result_fill, npy_decoder<M>{bytes.data() + at.value()});
}

template <npy_loadable M>
npy_result<void> parse_npy_into(std::span<const std::byte> bytes, M& out, const npy_context& ctx, bool cut) {
  const auto at = npy_check_as(npy_spec_of<M>, bytes, ctx, cut);
  if (!at) return at.error();
  npy_decoder<M>{bytes.data() + at.value()}(out);  // only now is `out` written: never partly
  return {};
}

// Reads a .npy file as far as `spec` needs: its preamble and header; then, if those fit, the data
// bytes they promise plus one, which tells trailing bytes (`cut`: there were more). A file of the
// wrong dtype or shape is refused before its data are read.
inline std::optional<npy_error> npy_read_file_as(const npy_spec& spec, std::string_view path,
                                                 std::vector<std::byte>& bytes, bool& cut, const npy_context& ctx) {
  auto in = npy_input::open(std::string{path}, ctx);
  if (!in) return in.error();
  if (auto e = npy_read_head(in.value(), bytes, ctx)) return e;
  const auto header = parse_npy_header(bytes, ctx);
  if (!header || npy_check_header_as(spec, header.value(), ctx)) return std::nullopt;  // reported by the parser
  const std::size_t end = header.value().data_offset + spec.data_bytes();
  if (auto e = in.value().read_up_to(bytes, end + 1, ctx)) return e;
  cut = bytes.size() > end;
  if (cut) bytes.resize(end);
  return std::nullopt;
}

// Finds `entry` in an archive and reads its data, at most spec.max_bytes() + 1 of them (`cut`).
template <class Source>
npy_result<std::span<const std::byte>> npz_entry_data(const npy_spec& spec, Source& zip, std::string_view entry,
                                                      std::string& entry_name, bool& cut, const npy_context& ctx) {
  auto location = find_zip_entry(zip, entry, ctx, entry_name);
  if (!location) return location.error();
  auto data = read_zip_entry(zip, location.value(), entry_name, spec.max_bytes(), cut, ctx);
  if (data && cut) return data.value().first(spec.max_bytes());
  return data;
}

// An .npz archive is read from its end, so it must be a file of known size (npy_input::open
// with regular_only has refused anything else; this catches a file replaced since).
inline npy_result<std::uint64_t> npz_archive_size(const npy_input& in, const npy_context& ctx) {
  if (!in.regular_size())
    return npy_fail(npy_errc::file_unreadable, ctx,
                    "found no regular file (a pipe, a device or a directory); an .npz archive is read from its end, "
                    "so it must be a regular file");
  return *in.regular_size();
}

// The two ends every reader finishes with: the array as a new value, or written into the
// caller's own (only once everything is checked).
template <npy_loadable M>
struct npy_as_value {
  static constexpr const npy_spec& spec = npy_spec_of<M>;
  npy_result<M> operator()(std::span<const std::byte> bytes, const npy_context& ctx, bool cut) const {
    return parse_npy_as<M>(bytes, ctx, cut);
  }
};
template <npy_loadable M>
struct npy_into {
  static constexpr const npy_spec& spec = npy_spec_of<M>;
  M* out;
  npy_result<void> operator()(std::span<const std::byte> bytes, const npy_context& ctx, bool cut) const {
    return parse_npy_into(bytes, *out, ctx, cut);
  }
};
template <class Finish>
using npy_finish_result =
    decltype(std::declval<const Finish&>()(std::span<const std::byte>{}, std::declval<const npy_context&>(), false));

// What an .npz reader expects of `entry`, for its messages.
inline std::string npz_expectation(const npy_spec& spec, std::string_view entry) {
  return "entry '" + std::string{entry} + "' as " + npy_expectation(spec);
}

// The .npy file at `path`, finished by `finish`.
template <class Finish>
npy_finish_result<Finish> load_npy_with(std::string_view path, const Finish& finish) {
  const std::string expected = npy_expectation(Finish::spec);
  const npy_context ctx{path, expected};
  std::vector<std::byte> bytes;
  bool cut = false;
  if (auto e = npy_read_file_as(Finish::spec, path, bytes, cut, ctx)) return std::move(*e);
  return finish(bytes, ctx, cut);
}

// The data of the entry `entry` of the archive `zip`, called `name` in messages, checked as far
// as the archive goes; `inner_name` receives the name finish's messages give.
template <class Source>
npy_result<std::span<const std::byte>> npz_entry_bytes(const npy_spec& spec, Source& zip, std::string_view name,
                                                       std::string_view entry, std::string& inner_name, bool& cut) {
  const std::string expected = npz_expectation(spec, entry);
  const npy_context ctx{name, expected};
  std::string entry_name;
  auto data = npz_entry_data(spec, zip, entry, entry_name, cut, ctx);
  if (data) inner_name = std::string{name} + "/" + entry_name;
  return data;
}

// The entry `entry` of the archive `zip`, called `name` in messages, finished by `finish`.
template <class Source, class Finish>
npy_finish_result<Finish> npz_read_entry(Source& zip, std::string_view name, std::string_view entry,
                                         const Finish& finish) {
  std::string inner_name;
  bool cut = false;
  auto data = npz_entry_bytes(Finish::spec, zip, name, entry, inner_name, cut);
  if (!data) return data.error();
  const std::string inner_expected = npy_expectation(Finish::spec);
  return finish(data.value(), npy_context{inner_name, inner_expected}, cut);
}

// Opens the .npz file at `path` for an entry read as `spec`; the first problem, if any.
inline npy_result<npy_input> npz_open(const npy_spec& spec, std::string_view path, std::string_view entry,
                                      std::uint64_t& size) {
  const std::string expected = npz_expectation(spec, entry);
  const npy_context ctx{path, expected};
  auto in = npy_input::open(std::string{path}, ctx, true);
  if (!in) return in.error();
  const auto archive_size = npz_archive_size(in.value(), ctx);
  if (!archive_size) return archive_size.error();
  size = archive_size.value();
  return in;
}

// The entry `entry` of the .npz file at `path`, finished by `finish`.
template <class Finish>
npy_finish_result<Finish> load_npz_with(std::string_view path, std::string_view entry, const Finish& finish) {
  std::uint64_t size = 0;
  auto in = npz_open(Finish::spec, path, entry, size);
  if (!in) return in.error();
  zip_file_source zip{in.value(), size};
  return npz_read_entry(zip, path, entry, finish);
}

}  // namespace detail

/// Reads a .npy image held in memory into M; `name` names the input in error messages.
template <npy_loadable M>
npy_result<M> parse_npy(std::span<const std::byte> bytes, std::string_view name = "<memory>") {
  const std::string expected = detail::npy_expectation(detail::npy_spec_of<M>);
  return detail::parse_npy_as<M>(bytes, detail::npy_context{name, expected}, false);
}

/// Reads a .npy image held in memory into `out`, which is written only on success.
template <npy_loadable M>
npy_result<void> parse_npy(std::span<const std::byte> bytes, M& out, std::string_view name = "<memory>") {
  const std::string expected = detail::npy_expectation(detail::npy_spec_of<M>);
  return detail::parse_npy_into(bytes, out, detail::npy_context{name, expected}, false);
}

/// Reads the .npy file at `path` into M:
/// `auto w = load_npy<matrix<float, 3, 2>>("w_query.npy");`
/// The matrix is decoded inside the result, which the caller holds: for shapes too large for the
/// stack, give the result static storage (`static const auto w = load_npy<M>(path);`) or read
/// into a matrix of your own with `load_npy(path, m)`.
template <npy_loadable M>
npy_result<M> load_npy(std::string_view path) {
  return detail::load_npy_with(path, detail::npy_as_value<M>{});
}

/// Reads the .npy file at `path` into `out` (a matrix of any storage: static, or on the heap
/// with `std::make_unique<M>()`), which is written only on success:
/// `if (auto r = load_npy("w_query.npy", *w); !r) ...`
template <npy_loadable M>
npy_result<void> load_npy(std::string_view path, M& out) {
  return detail::load_npy_with(path, detail::npy_into<M>{&out});
}

/// Reads the entry `entry` (or `entry` + ".npy") of an .npz archive held in memory into M.
template <npy_loadable M>
npy_result<M> parse_npz(std::span<const std::byte> archive, std::string_view entry,
                        std::string_view name = "<memory>") {
  detail::zip_memory_source zip{archive};
  return detail::npz_read_entry(zip, name, entry, detail::npy_as_value<M>{});
}

/// Reads the entry `entry` of an .npz archive held in memory into `out`, written only on success.
template <npy_loadable M>
npy_result<void> parse_npz(std::span<const std::byte> archive, std::string_view entry, M& out,
                           std::string_view name = "<memory>") {
  detail::zip_memory_source zip{archive};
  return detail::npz_read_entry(zip, name, entry, detail::npy_into<M>{&out});
}

/// Reads one array of an .npz archive written by np.savez into M:
/// `auto wq = load_npz<matrix<float, 2, 3>>("weights.npz", "W_query");`
/// Reads the archive's end record, its central directory one record at a time and the one entry,
/// so memory does not grow with the archive; the archive must be a regular file.
template <npy_loadable M>
npy_result<M> load_npz(std::string_view path, std::string_view entry) {
  return detail::load_npz_with(path, entry, detail::npy_as_value<M>{});
}

/// Reads one array of an .npz archive into `out`, which is written only on success.
template <npy_loadable M>
npy_result<void> load_npz(std::string_view path, std::string_view entry, M& out) {
  return detail::load_npz_with(path, entry, detail::npy_into<M>{&out});
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

/// The default limit of parse_npy_array and load_npy_array on an array's data: 1 GiB. Larger
/// arrays are refused (npy_errc::too_large) before anything is allocated for them.
inline constexpr std::size_t npy_array_max_bytes = std::size_t{1} << 30;

namespace detail {

// The number of elements of an array of run-time shape, checked against the dtype and the byte
// limit. A shape with a zero dimension has no elements, whatever the others say.
inline npy_result<std::size_t> npy_array_count(const npy_header& h, std::size_t max_bytes, const npy_context& ctx) {
  if (h.descr != "<f4" && h.descr != "<f8")
    return npy_fail(npy_errc::dtype_mismatch, ctx, npy_dtype_finding(h.descr, ""));
  if (auto e = npy_check_layout(h, ctx)) return std::move(*e);
  const std::size_t width = h.descr == "<f4" ? 4 : 8;
  for (const std::size_t d : h.shape)
    if (d == 0) return std::size_t{0};
  std::size_t count = 1;
  for (const std::size_t d : h.shape) {
    if (count > max_bytes / width / d)
      return npy_fail(npy_errc::too_large, ctx,
                      "found shape " + npy_shape_string(h.shape) + ", more than the limit of " +
                          std::to_string(max_bytes) + " data bytes (max_bytes)");
    count *= d;
  }
  return count;
}

// An array of run-time shape from a .npy image; `cut`: the reader stopped before the input ended.
inline npy_result<npy_array> npy_array_from(std::span<const std::byte> bytes, std::size_t max_bytes, bool cut,
                                            const npy_context& ctx) {
  auto header = parse_npy_header(bytes, ctx);
  if (!header) return header.error();
  const auto count = npy_array_count(header.value(), max_bytes, ctx);
  if (!count) return count.error();
  npy_array a;
  a.header = std::move(header).value();
  a.dtype = a.header.descr == "<f4" ? npy_dtype::f4 : npy_dtype::f8;
  const std::size_t width = a.dtype == npy_dtype::f4 ? 4 : 8, n = count.value();
  if (auto e = npy_check_data_size(bytes.size() - a.header.data_offset, n * width, cut, ctx)) return std::move(*e);
  const std::byte* p = bytes.data() + a.header.data_offset;
  if (a.dtype == npy_dtype::f4) {
    a.f4.resize(n);
    for (std::size_t k = 0; k < n; ++k) a.f4[k] = npy_decode<float>(p + k * 4);
  } else {
    a.f8.resize(n);
    for (std::size_t k = 0; k < n; ++k) a.f8[k] = npy_decode<double>(p + k * 8);
  }
  return a;
}

}  // namespace detail

/// Reads a .npy image of dtype '<f4' or '<f8', C order, of any shape whose data take at most
/// `max_bytes`.
inline npy_result<npy_array> parse_npy_array(std::span<const std::byte> bytes, std::string_view name = "<memory>",
                                             std::size_t max_bytes = npy_array_max_bytes) {
  return detail::npy_array_from(bytes, max_bytes, false, detail::npy_context{name, "an array of dtype '<f4' or '<f8'"});
}

/// Reads the .npy file at `path` of dtype '<f4' or '<f8', C order, of any shape whose data take
/// at most `max_bytes`. Reads the header first, then only the data bytes it promises (plus one),
/// so an endless input (a pipe, /dev/zero) or a huge file is refused without being read whole.
/// Heap: the file's bytes and the decoded elements, about twice the data.
inline npy_result<npy_array> load_npy_array(std::string_view path, std::size_t max_bytes = npy_array_max_bytes) {
  const detail::npy_context ctx{path, "an array of dtype '<f4' or '<f8'"};
  auto in = detail::npy_input::open(std::string{path}, ctx);
  if (!in) return in.error();
  std::vector<std::byte> bytes;
  if (auto e = detail::npy_read_head(in.value(), bytes, ctx)) return std::move(*e);
  bool cut = false;
  if (const auto header = detail::parse_npy_header(bytes, ctx)) {
    const auto count = detail::npy_array_count(header.value(), max_bytes, ctx);
    if (!count) return count.error();
    const std::size_t end = header.value().data_offset + count.value() * (header.value().descr == "<f4" ? 4 : 8);
    if (auto e = in.value().read_up_to(bytes, end + 1, ctx)) return std::move(*e);
    cut = bytes.size() > end;
    if (cut) bytes.resize(end);
  }
  return detail::npy_array_from(bytes, max_bytes, cut, ctx);
}

}  // namespace static_attention
