// npy_errc, npy_error and npy_result<T>: how the .npy/.npz readers report failure without
// exceptions (they may be off on embedded targets), in the spirit of C++23's std::expected.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace static_attention {

/// What went wrong reading a .npy file or an .npz archive.
enum class npy_errc {
  file_not_found,       ///< the file does not exist
  file_unreadable,      ///< the file exists but cannot be read (permissions, a directory, I/O error)
  bad_magic,            ///< not a .npy file: it does not start with "\x93NUMPY"
  unsupported_version,  ///< a format version other than 1.0, 2.0 and 3.0
  truncated_header,     ///< the input ends inside the preamble or the header
  header_too_large,     ///< the header is longer than numpy's own limit of 10000 bytes
  header_encoding,      ///< a byte the version does not allow, or one no supported header contains
  malformed_header,     ///< the header is not a dict literal of the form numpy writes
  header_keys,          ///< a key of 'descr', 'fortran_order', 'shape' is missing, repeated or unknown
  dtype_mismatch,       ///< the element type is not the one asked for ('<f4' for float, '<f8' for double)
  fortran_order,        ///< the data are in column-major (Fortran) order
  shape_mismatch,       ///< the shape is not the one the matrix or tensor type states
  truncated_data,       ///< fewer data bytes than the shape and dtype need
  trailing_bytes,       ///< more bytes after the data than the shape and dtype need
  zip_malformed,        ///< not a ZIP archive, or its records contradict each other
  zip_truncated,        ///< a ZIP record or an entry's data extends past the end of the archive
  zip_unsupported,      ///< ZIP64 end records, encryption or multi-disk archives
  zip_compressed,       ///< a compressed entry, as np.savez_compressed writes
  zip_entry_not_found,  ///< no entry of the requested name
  zip_crc_mismatch,     ///< an entry's data do not match their CRC-32
  too_large,            ///< an array of run-time shape larger than the reader's byte limit
};

/// The name of an error code, e.g. "shape_mismatch".
constexpr std::string_view to_string_view(npy_errc code) noexcept {
  constexpr std::string_view names[] = {
      "file_not_found",   "file_unreadable", "bad_magic",        "unsupported_version", "truncated_header",
      "header_too_large", "header_encoding", "malformed_header", "header_keys",         "dtype_mismatch",
      "fortran_order",    "shape_mismatch",  "truncated_data",   "trailing_bytes",      "zip_malformed",
      "zip_truncated",    "zip_unsupported", "zip_compressed",   "zip_entry_not_found", "zip_crc_mismatch",
      "too_large"};
  const auto i = static_cast<std::size_t>(code);
  return i < std::size(names) ? names[i] : std::string_view{"unknown"};
}

/// A failure: a code to branch on, and a message for people that names the input, what was
/// expected and what was found.
struct npy_error {
  npy_errc code;
  std::string message;
};

namespace detail {
// Misuse of a result, as with std::optional::value() without exceptions: report and stop, since
// returning anything would hand out a value that looks loaded but is not.
[[noreturn]] inline void npy_bad_result_access(const char* what, const std::string& detail) noexcept {
  std::fprintf(stderr, "static_attention: %s: %s\n", what, detail.c_str());
  std::abort();
}
}  // namespace detail

namespace detail {
// Tag of npy_result's constructor that fills the value where it will stay (see below).
struct npy_fill_t {
  explicit npy_fill_t() = default;
};
inline constexpr npy_fill_t npy_fill{};
}  // namespace detail

/// Either a fully loaded T or an npy_error, never both and never a partly filled T.
///
/// `value()` on an error and `error()` on a value print a message and abort(), so check
/// `has_value()` (or the result itself, as a bool) first.
///
/// The value lives inside the result. For a large matrix keep the result and use `value()` by
/// reference (`const auto& w = r.value();`): `auto w = load_npy<M>(p).value();` copies it.
template <class T>
class [[nodiscard]] npy_result {
 public:
  using value_type = T;

  /// A success.
  npy_result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, as std::expected
  /// A success holding T constructed in place from args, as std::expected.
  template <class... Args>
  explicit npy_result(std::in_place_t, Args&&... args) : value_(std::in_place, std::forward<Args>(args)...) {}
  /// A success holding a value-initialised T that `fill(T&)` then writes, where it will stay: the
  /// readers return `npy_result<M>(detail::npy_fill, ...)` as a prvalue, so a large matrix is
  /// decoded straight into the caller's result and never copied on the stack.
  template <class Fill>
  npy_result(detail::npy_fill_t, Fill&& init_fill) : value_(std::in_place) {
    std::forward<Fill>(init_fill)(*value_);
  }
  /// A failure.
  npy_result(npy_error error) : error_(std::move(error)) {}  // NOLINT: implicit, as std::expected

  /// True if the result holds a value.
  bool has_value() const noexcept { return value_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }

  /// The value; aborts with the error's message if there is none.
  T& value() & noexcept {
    check_value();
    return *value_;
  }
  const T& value() const& noexcept {
    check_value();
    return *value_;
  }
  T&& value() && noexcept {
    check_value();
    return std::move(*value_);
  }

  /// The error; aborts if the result holds a value.
  const npy_error& error() const noexcept {
    if (has_value()) detail::npy_bad_result_access("npy_result::error() called on a value", "");
    return error_;
  }

 private:
  void check_value() const noexcept {
    if (!has_value()) detail::npy_bad_result_access("npy_result::value() called on an error", error_.message);
  }

  std::optional<T> value_;
  npy_error error_{};
};

/// Success or an npy_error, for the readers that write into a matrix the caller owns
/// (`load_npy(path, m)`), as `std::expected<void, npy_error>`.
template <>
class [[nodiscard]] npy_result<void> {
 public:
  using value_type = void;

  /// A success.
  npy_result() noexcept = default;
  /// A failure.
  npy_result(npy_error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit, as std::expected

  /// True on success.
  bool has_value() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }

  /// Nothing, on success; aborts with the error's message on a failure.
  void value() const noexcept {
    if (!ok_) detail::npy_bad_result_access("npy_result::value() called on an error", error_.message);
  }

  /// The error; aborts on a success.
  const npy_error& error() const noexcept {
    if (ok_) detail::npy_bad_result_access("npy_result::error() called on a value", "");
    return error_;
  }

 private:
  npy_error error_{};
  bool ok_ = true;
};

}  // namespace static_attention
